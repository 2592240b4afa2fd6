/**
 * Every failure of the exchange client surfaces as one of these typed errors, each with a readable,
 * one-line message that never contains a private key.
 */

/** A 0x-prefixed 32-byte hex string: the shape of a private key (also of hashes, which we accept losing). */
const SECRET_HEX = /0x[0-9a-fA-F]{64}(?![0-9a-fA-F])/g;

/** Remove anything shaped like a private key from a text meant for logs, errors or the terminal. */
export function redactSecrets(text: string): string {
  return text.replace(SECRET_HEX, "0x<redacted>");
}

export class ExchangeError extends Error {
  override name = "ExchangeError";
  constructor(message: string, options?: ErrorOptions) {
    super(redactSecrets(message), options);
  }
}

/** The exchange could not be reached (connection refused, reset, DNS, non-JSON reply, 5xx). */
export class NetworkError extends ExchangeError {
  override name = "NetworkError";
}

/** The exchange (or our own weight budget, after the retries) said: too many requests. */
export class RateLimitedError extends ExchangeError {
  override name = "RateLimitedError";
}

/** No answer within the request timeout. */
export class TimeoutError extends ExchangeError {
  override name = "TimeoutError";
}

/**
 * The exchange answered and said no (bad signature, used nonce, invalid price, margin, builder fee…).
 * `message` is the exchange's own text; `response` the raw reply for callers that need the details.
 */
export class RejectedError extends ExchangeError {
  override name = "RejectedError";
  constructor(
    message: string,
    readonly response?: unknown,
    /** Per-order refusals inside an otherwise accepted batch (index-aligned with the batch), if any. */
    readonly statusErrors?: readonly (string | undefined)[],
  ) {
    super(message);
  }
}

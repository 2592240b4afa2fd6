import type { Logger } from "./log.ts";

/**
 * The events every service logs under the same names and fields (docs/logging.md), so an operator
 * can filter one kind across services: `event` names it, `msg` says it in words.
 */

/** The service listens: where, and what it was started with (never a secret). */
export function logStarted(
  log: Logger,
  fields: { url: string } & Record<string, unknown>,
  msg: string,
): void {
  log.info({ event: "start", ...fields }, msg);
}

/** A request failed on the server's side (a 5xx): the client got `{error}`, the cause goes here. */
export function logRequestFailed(
  log: Logger,
  method: string,
  path: string,
  status: number,
  err: unknown,
): void {
  log.error({ event: "request_failed", method, path, status, err: asError(err) }, `${method} ${path} failed`);
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

import type { AddressBudget } from "../auth/address-budget.ts";
import { type AuthDeps, authenticate } from "../auth/authenticate.ts";
import { type Address, type ExchangeAction, type Venue, VenueError } from "../venue.ts";

/** An answer of /info or /exchange, shared by the HTTP and WebSocket transports. */
export type EndpointResult = { ok: true; body: unknown } | { ok: false; message: string };

const DESERIALIZE = "Failed to deserialize the JSON body into the target type";

/**
 * POST /info: any `{type, ...}` object goes to the venue. `seeUser` is told about every address an
 * info request names, so the world can open the account with its starting balance on first use.
 */
export function answerInfo(
  venue: Venue,
  body: unknown,
  seeUser?: (user: Address) => void,
  budget?: AddressBudget,
): EndpointResult {
  if (typeof body !== "object" || body === null || Array.isArray(body))
    return { ok: false, message: DESERIALIZE };
  const req = body as { type?: unknown; user?: unknown; [k: string]: unknown };
  if (typeof req.type !== "string") return { ok: false, message: `${DESERIALIZE}: missing field \`type\`` };
  if (seeUser && typeof req.user === "string" && /^0x[0-9a-fA-F]{40}$/.test(req.user)) {
    seeUser(req.user.toLowerCase() as Address);
  }
  try {
    const answer = venue.info(req as { type: string });
    // The requests an address has sent, and has bought and not spent, are counted here, at the door.
    if (budget && req.type === "userRateLimit" && typeof req.user === "string")
      return {
        ok: true,
        body: {
          ...(answer as object),
          nRequestsUsed: budget.used(req.user),
          nRequestsSurplus: budget.surplus(req.user),
        },
      };
    return { ok: true, body: answer };
  } catch (err) {
    if (err instanceof VenueError) return { ok: false, message: err.message };
    throw err;
  }
}

/**
 * POST /exchange: verify the signature and nonce, then apply the action for the recovered account.
 * Refusals come back as the exchange's `{status:"err", response}` (HTTP 200); only a body that is not
 * an exchange request at all is a transport error.
 */
export async function answerExchange(
  venue: Venue,
  auth: AuthDeps,
  body: unknown,
  seeUser?: (user: Address) => void,
): Promise<EndpointResult> {
  if (typeof body !== "object" || body === null || Array.isArray(body) || !("action" in body)) {
    return { ok: false, message: `${DESERIALIZE}: missing field \`action\`` };
  }
  const verdict = await authenticate(body, auth);
  if (!verdict.ok) return { ok: true, body: { status: "err", response: verdict.error } };
  const over = auth.addressBudget?.spend(verdict.user, verdict.action, auth.volumeUsd?.(verdict.user) ?? 0);
  if (over) return { ok: true, body: { status: "err", response: over } };
  try {
    const answer = venue.exchange(verdict.action as ExchangeAction, verdict.user, verdict.nonce);
    // The receiver of a transfer now has an account, so its own signatures are recognised.
    const dest = verdict.action.destination;
    if (seeUser && answer.status === "ok" && verdict.action.type === "usdSend" && typeof dest === "string") {
      seeUser(dest.toLowerCase() as Address);
    }
    // The venue has charged for the requests; they are spent at this door.
    if (answer.status === "ok" && verdict.action.type === "reserveRequestWeight")
      auth.addressBudget?.reserve(verdict.user, verdict.action.weight as number);
    return { ok: true, body: answer };
  } catch (err) {
    if (err instanceof VenueError) return { ok: true, body: { status: "err", response: err.message } };
    throw err;
  }
}

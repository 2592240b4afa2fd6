import { randomBytes } from "node:crypto";
import { D, dec } from "../core/decimal.ts";
import type { OrderRequest, OrderResult, SentOrder } from "./actions.ts";
import type { Hex } from "./config.ts";
import { ExchangeError } from "./errors.ts";
import type { HlInfo } from "./info.ts";

/**
 * An order request whose answer never came (timeout, connection reset after sending) may have
 * traded. Sending it again could double a position, and counting it as failed loses one. Every order
 * therefore carries a cloid and an `expiresAfter`: until it is resolved here — by `orderStatus` on its
 * cloid, with its fills for the price — nothing else may be sent for that coin. Once its expiry has
 * passed, an order the exchange still does not know can never execute, so "not placed" is final.
 */

/** A fresh random client order id. */
export function randomCloid(): Hex {
  return `0x${randomBytes(16).toString("hex")}`;
}

/** An order sent without an answer: what was signed, and until when the exchange may still execute it. */
export interface PendingOrder {
  order: SentOrder & { cloid: Hex };
  /** Wall time it was sent. */
  sentAtMs: number;
  /** The action's `expiresAfter` (wall ms): past it (plus clock skew) the exchange refuses it. */
  expiresAfterMs: number;
}

/** Thrown by an order call whose outcome is unknown; `pending` lists every order of the batch. */
export class OrderOutcomeUnknownError extends ExchangeError {
  override name = "OrderOutcomeUnknownError";
  constructor(
    message: string,
    readonly pending: readonly PendingOrder[],
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** The exchange could not be asked in time; the order is still unresolved and its coin stays blocked. */
export class OrderUnresolvedError extends ExchangeError {
  override name = "OrderUnresolvedError";
}

/** What resolution needs from the exchange: the order's status by cloid and the account's fills. */
export type OutcomeSource = Pick<HlInfo, "orderStatus" | "userFillsByTime">;

export interface ResolveOptions {
  /** Allowed difference between our clock and the exchange's (default 2 s). */
  clockSkewMs?: number;
  /** Between two status queries (default 500 ms). */
  pollMs?: number;
  /** Give up (OrderUnresolvedError) when the exchange cannot be asked for this long past the expiry (default 60 s). */
  maxWaitMs?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** The documented refusal text of each rejected status (so `classifyRejection` reads them like live refusals). */
const REJECTED_TEXT: Record<string, string> = {
  tickRejected: "Price must be divisible by tick size.",
  minTradeNtlRejected: "Order must have minimum value of $10.",
  perpMarginRejected: "Insufficient margin to place order.",
  reduceOnlyRejected: "Reduce only order would increase position.",
  badAloPxRejected: "Post only order would have immediately matched.",
  iocCancelRejected: "Order could not immediately match against any resting orders.",
  badTriggerPxRejected: "Invalid TP/SL price.",
  marketOrderNoLiquidityRejected: "No liquidity available for market order.",
  positionIncreaseAtOpenInterestCapRejected:
    "Order would increase open interest while open interest is capped",
  positionFlipAtOpenInterestCapRejected: "Order would increase open interest while open interest is capped",
  tooAggressiveAtOpenInterestCapRejected:
    "Order rejected due to price more aggressive than oracle while at open interest cap",
  openInterestIncreaseRejected: "Order would increase open interest too quickly",
  insufficientSpotBalanceRejected: "(Spot-only) Order has insufficient spot balance to trade",
  oracleRejected: "Order price too far from oracle",
  perpMaxPositionRejected: "Order would cause position to exceed margin tier limit at current leverage",
};

/** Text of the result of an order that expired without ever reaching the exchange. */
export const NEVER_PLACED = "order never reached the exchange (expired unprocessed)";

const realSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Resolve one pending order to what really happened: `filled` (also a partial fill of an IOC whose
 * rest was cancelled; size and average price from its fills), `resting`, or `error` (rejected with the
 * exchange's reason, cancelled unfilled, or never placed). Throws OrderUnresolvedError only when the
 * exchange cannot be asked for `maxWaitMs` past the expiry.
 */
export async function resolveOrderOutcome(
  source: OutcomeSource,
  pending: PendingOrder,
  opts: ResolveOptions = {},
): Promise<OrderResult> {
  const now = opts.now ?? Date.now;
  const sleep = opts.sleep ?? realSleep;
  const skew = opts.clockSkewMs ?? 2_000;
  const pollMs = opts.pollMs ?? 500;
  const finalAt = pending.expiresAfterMs + skew;
  const giveUpAt = finalAt + (opts.maxWaitMs ?? 60_000);
  const order = pending.order;
  for (;;) {
    try {
      const asked = now();
      const reply = await source.orderStatus(order.cloid);
      if (reply.status === "order") return await settle(source, pending, reply.order);
      // Unknown only counts as "never placed" once the exchange can no longer accept it.
      if (asked > finalAt) return { status: "error", message: NEVER_PLACED, order };
    } catch (err) {
      if (now() > giveUpAt) {
        throw new OrderUnresolvedError(
          `order ${order.cloid} on ${order.instrument}: outcome still unknown (${err instanceof Error ? err.message : String(err)})`,
          { cause: err },
        );
      }
    }
    await sleep(pollMs);
  }
}

type StatusEntry = Extract<Awaited<ReturnType<OutcomeSource["orderStatus"]>>, { status: "order" }>["order"];

async function settle(
  source: OutcomeSource,
  pending: PendingOrder,
  entry: StatusEntry,
): Promise<OrderResult> {
  const order = pending.order;
  const oid = entry.order.oid;
  const status = entry.status;
  const filledSz = dec(entry.order.origSz).minus(entry.order.sz);
  if (status === "open" || status === "triggered") return { status: "resting", oid, order };
  if (status === "filled" || filledSz.gt(0)) {
    const totalSz = status === "filled" ? dec(entry.order.origSz) : filledSz;
    const avgPx = await averagePrice(source, oid, pending.sentAtMs);
    return {
      status: "filled",
      oid,
      totalSz: totalSz.toFixed(),
      avgPx: avgPx ?? entry.order.limitPx,
      order,
    };
  }
  const text = REJECTED_TEXT[status];
  if (text) return { status: "error", message: text, order };
  return { status: "error", message: `order ${status} before it filled`, order };
}

/** Perp prices carry at most 6 decimals; an average of them keeps 2 more, not decimal.js's 40 digits. */
const AVG_PX_DECIMALS = 8;

/** Size-weighted price of the order's fills, or undefined when they are not visible yet. */
async function averagePrice(
  source: OutcomeSource,
  oid: number,
  sinceMs: number,
): Promise<string | undefined> {
  try {
    const fills = (await source.userFillsByTime({ startTime: sinceMs - 60_000 })).filter(
      (f) => f.oid === oid,
    );
    const size = fills.reduce((s, f) => s.plus(f.sz), new D(0));
    if (size.isZero()) return undefined;
    return fills
      .reduce((s, f) => s.plus(dec(f.px).times(f.sz)), new D(0))
      .div(size)
      .toDecimalPlaces(AVG_PX_DECIMALS)
      .toFixed();
  } catch {
    return undefined;
  }
}

/** Place one order; when its answer is lost, wait for what really happened instead of guessing. */
export async function placeResolved(
  client: {
    order(req: OrderRequest): Promise<OrderResult>;
    resolveOrder(p: PendingOrder, o?: ResolveOptions): Promise<OrderResult>;
  },
  req: OrderRequest,
  opts?: ResolveOptions,
): Promise<OrderResult> {
  try {
    return await client.order(req);
  } catch (err) {
    const pending = err instanceof OrderOutcomeUnknownError ? err.pending[0] : undefined;
    if (!pending) throw err;
    return client.resolveOrder(pending, opts);
  }
}

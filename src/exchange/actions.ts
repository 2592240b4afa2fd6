import { D, type DecLike, wire } from "../core/decimal.ts";
import type { BuilderFee, Hex } from "./config.ts";
import { RejectedError } from "./errors.ts";
import { roundPrice, roundSize } from "./rounding.ts";
import type { Market } from "./symbols.ts";

export type Side = "buy" | "sell";
export type TimeInForce = "Gtc" | "Ioc" | "Alo";

/** A limit order in our terms; price and size are rounded to the market's tick and lot before signing. */
export interface OrderRequest {
  instrument: string;
  side: Side;
  size: DecLike;
  price: DecLike;
  /** Default "Gtc". */
  tif?: TimeInForce;
  reduceOnly?: boolean;
  /** Client order id: `0x` + 32 hex digits. */
  cloid?: Hex;
}

/** What was actually signed and sent (after rounding). */
export interface SentOrder {
  instrument: string;
  coin: string;
  assetId: number;
  side: Side;
  price: string;
  size: string;
  tif: TimeInForce;
  reduceOnly: boolean;
  cloid?: Hex;
}

/** The exchange's answer to one order, normalised. Refusals of the order itself are values, not throws. */
export type OrderResult =
  | { status: "resting"; oid: number; order: SentOrder }
  | { status: "filled"; oid: number; totalSz: string; avgPx: string; order: SentOrder }
  | { status: "error"; message: string; order: SentOrder };

/** Wire form of one order, as the SDK's `order` action takes it. */
interface WireOrder {
  a: number;
  b: boolean;
  p: string;
  s: string;
  r: boolean;
  t: { limit: { tif: TimeInForce } };
  c?: Hex;
}

const CLOID = /^0x[0-9a-fA-F]{32}$/;

/** Round and encode one order for `market`. Prices round toward the passive side (never worse than asked). */
export function buildOrder(req: OrderRequest, market: Market): { wire: WireOrder; sent: SentOrder } {
  if (req.cloid !== undefined && !CLOID.test(req.cloid))
    throw new RangeError(`cloid must be 0x + 32 hex digits, got "${req.cloid}"`);
  const price = roundPrice(req.price, market.szDecimals, req.side === "buy" ? "down" : "up");
  const size = roundSize(req.size, market.szDecimals);
  const tif = req.tif ?? "Gtc";
  const reduceOnly = req.reduceOnly ?? false;
  const wire: WireOrder = {
    a: market.assetId,
    b: req.side === "buy",
    p: price,
    s: size,
    r: reduceOnly,
    t: { limit: { tif } },
  };
  if (req.cloid) wire.c = req.cloid;
  const sent: SentOrder = {
    instrument: market.instrument,
    coin: market.coin,
    assetId: market.assetId,
    side: req.side,
    price,
    size,
    tif,
    reduceOnly,
  };
  if (req.cloid) sent.cloid = req.cloid;
  return { wire, sent };
}

/** The builder field of an order action, or nothing when no builder is configured. */
export function builderField(
  builder: BuilderFee | undefined,
): { builder: { b: Hex; f: number } } | Record<string, never> {
  return builder ? { builder: { b: builder.address.toLowerCase() as Hex, f: builder.feeTenthsBps } } : {};
}

/** Normalise one entry of `response.data.statuses`. */
export function normalizeStatus(status: unknown, order: SentOrder): OrderResult {
  if (typeof status === "object" && status !== null) {
    const s = status as {
      resting?: { oid: number };
      filled?: { oid: number; totalSz: string; avgPx: string };
      error?: string;
    };
    if (s.filled)
      return { status: "filled", oid: s.filled.oid, totalSz: s.filled.totalSz, avgPx: s.filled.avgPx, order };
    if (s.resting) return { status: "resting", oid: s.resting.oid, order };
    if (typeof s.error === "string") return { status: "error", message: s.error, order };
  }
  if (status === "waitingForFill" || status === "waitingForTrigger") {
    return { status: "error", message: `unexpected order status "${status}" for a limit order`, order };
  }
  return { status: "error", message: `unrecognised order status ${JSON.stringify(status)}`, order };
}

/** The statuses array of an order reply (accepted, or refused per order inside a RejectedError). */
export function statusesOf(response: unknown): unknown[] | undefined {
  const statuses = (response as { response?: { data?: { statuses?: unknown } } } | undefined)?.response?.data
    ?.statuses;
  return Array.isArray(statuses) ? statuses : undefined;
}

/**
 * Turn a batch reply into one result per order. Per-order refusals arrive as a RejectedError carrying
 * the statuses; those become `{status:"error"}` values. A refusal of the whole action is re-thrown.
 */
export async function settleOrders(send: () => Promise<unknown>, sent: SentOrder[]): Promise<OrderResult[]> {
  let response: unknown;
  try {
    response = await send();
  } catch (err) {
    if (!(err instanceof RejectedError) || !err.statusErrors) throw err;
    response = err.response;
  }
  const statuses = statusesOf(response);
  if (!statuses)
    throw new RejectedError(`unexpected order reply ${JSON.stringify(response).slice(0, 200)}`, response);
  return sent.map((order, i) => normalizeStatus(statuses[i], order));
}

/** Tenths of a basis point → the percentage string approveBuilderFee signs (10 → "0.01%"). */
export function feeRatePercent(feeTenthsBps: number): string {
  if (!Number.isInteger(feeTenthsBps) || feeTenthsBps < 0)
    throw new RangeError("fee must be a non-negative integer (tenths of a bp)");
  return `${wire(new D(feeTenthsBps).div(1000))}%`;
}

/**
 * A reduce-only stop-market trigger order (Hyperliquid `t: {trigger: {isMarket: true, triggerPx,
 * tpsl: "sl"}}`, `r: true`): it rests off the book until the mark price crosses `triggerPx`, then
 * closes at market within `TRIGGER_SLIPPAGE` of the trigger (the limit `p` it carries).
 */
export interface StopOrderRequest {
  instrument: string;
  /** The side of the closing order: "sell" guards a long, "buy" a short. */
  side: Side;
  size: DecLike;
  triggerPx: DecLike;
  /** Client order id: `0x` + 32 hex digits (a backstop's id is derived from what it guards). */
  cloid: Hex;
}

/** How far past its trigger a market stop may fill (the exchange's own TP/SL orders allow 10 %). */
const TRIGGER_SLIPPAGE = "0.1";

interface WireStopOrder {
  a: number;
  b: boolean;
  p: string;
  s: string;
  r: true;
  t: { trigger: { isMarket: true; triggerPx: string; tpsl: "sl" } };
  c: Hex;
}

/** A trigger order's answer: resting (waiting for its trigger) or refused. */
export type StopOrderResult = { status: "resting"; oid: number } | { status: "error"; message: string };

/** Round and encode a stop: trigger and limit on the price grid, the limit on the far side of the trigger. */
export function buildStopOrder(
  req: StopOrderRequest,
  market: Pick<Market, "assetId" | "szDecimals">,
): WireStopOrder {
  if (!CLOID.test(req.cloid)) throw new RangeError(`cloid must be 0x + 32 hex digits, got "${req.cloid}"`);
  const sell = req.side === "sell";
  // A sell stop guards a long: its trigger rounds down (never tighter than asked), a buy stop's up.
  const triggerPx = roundPrice(req.triggerPx, market.szDecimals, sell ? "down" : "up");
  const slip = new D(TRIGGER_SLIPPAGE);
  const limit = new D(triggerPx).times(sell ? new D(1).minus(slip) : new D(1).plus(slip));
  return {
    a: market.assetId,
    b: !sell,
    p: roundPrice(limit, market.szDecimals, sell ? "down" : "up"),
    s: roundSize(req.size, market.szDecimals),
    r: true,
    t: { trigger: { isMarket: true, triggerPx, tpsl: "sl" } },
    c: req.cloid,
  };
}

/** One status of an order or batchModify reply, for a trigger order. */
export function stopStatus(status: unknown): StopOrderResult {
  if (typeof status === "object" && status !== null) {
    const s = status as { resting?: { oid: number }; filled?: { oid: number }; error?: string };
    if (s.resting) return { status: "resting", oid: s.resting.oid };
    // Already past its trigger when placed: it fired at once (the position is being closed).
    if (s.filled) return { status: "resting", oid: s.filled.oid };
    if (typeof s.error === "string") return { status: "error", message: s.error };
  }
  if (status === "waitingForTrigger") return { status: "error", message: "accepted without an order id" };
  return { status: "error", message: `unrecognised order status ${JSON.stringify(status)}` };
}

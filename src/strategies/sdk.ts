import type { z } from "zod";

/**
 * The strategy SDK. A strategy is pure decision code: it is handed a market snapshot, its own
 * position/orders, the risk mode, the time and its params plus the state it returned last tick, and
 * it answers with the orders it wants. No I/O, no clock, no randomness it was not handed.
 */

export type Side = "buy" | "sell";
/** Alo = post-only resting quote, Gtc = resting limit, Ioc = take now or cancel the rest. */
export type Tif = "Alo" | "Gtc" | "Ioc";
export type StrategyType = "mm" | "arb" | "signal" | "taker" | "risk" | "rfq" | "llm";

export interface BookLevel {
  px: number;
  sz: number;
}

export interface Candle {
  /** Open time, ms. */
  t: number;
  o: number;
  h: number;
  l: number;
  c: number;
  v: number;
}

export interface MarketSnapshot {
  instrument: string;
  /** Exchange time of the snapshot, ms. */
  timestampMs: number;
  mid: number;
  bid: number;
  ask: number;
  /** Up to 20 levels per side, best first. */
  book: { bids: BookLevel[]; asks: BookLevel[] };
  /** Current funding rate per hour (Hyperliquid funds hourly), as a fraction. */
  fundingRate: number;
  openInterest: number;
  volume24h: number;
  /** Recent closed 1-minute candles (not the one in progress), oldest first (may be empty). */
  candles: Candle[];
  /** Funding of the same asset on other venues, per hour, keyed by venue (may be empty). */
  referenceFunding: Record<string, number>;
}

interface OpenOrderView {
  side: Side;
  price: number;
  size: number;
}

export interface FillView {
  side: Side;
  price: number;
  size: number;
  timestampMs: number;
}

interface RiskView {
  /** Only orders that shrink the position will pass the risk manager. */
  reduceOnly: boolean;
  /** Drawdown from the high-water mark, percent of the reference capital (0–100). */
  drawdownPct: number;
}

export interface DecisionContext {
  snapshot: MarketSnapshot;
  /** Net position, positive long. */
  positionQty: number;
  avgEntryPrice: number;
  unrealizedPnl: number;
  realizedPnl: number;
  openOrders: OpenOrderView[];
  /** The account's latest fills on this instrument, newest first (at most 10). */
  recentFills: FillView[];
  risk: RiskView;
  /** Ticks completed before this one (cumulative across resumes). */
  tick: number;
  /** Seconds between ticks (strategies that annualise volatility need the real interval). */
  tickSeconds: number;
  nowMs: number;
  /** Answer of the strategy's advisor for this tick, when the strategy has one (see llm_agent). */
  advice?: Advice;
}

/** One order the strategy wants. Prices and sizes are unrounded; the engine applies the exchange's precision. */
export interface OrderIntent {
  side: Side;
  price: number;
  size: number;
  tif: Tif;
  /** Why: a short signal name ("as_bid", "breakout_long", …) recorded in logs. */
  tag: string;
  reduceOnly?: boolean;
}

interface Decision<S> {
  /**
   * Resting intents (Alo/Gtc) are the complete set of quotes the strategy wants on the book now:
   * the engine keeps matching open orders, replaces moved ones and cancels the rest.
   * Ioc intents are sent once.
   */
  orders: OrderIntent[];
  state: S;
  /** Numbers worth logging (fair value, sigma, regime, …). */
  meta?: Record<string, number | string | boolean | undefined>;
}

/** What an advisor (an LLM) answered; produced outside the strategy, consumed purely inside it. */
export type Advice =
  | { kind: "place_order"; side: string; size: number; price: number; reasoning: string }
  | { kind: "hold"; reasoning: string }
  | { kind: "error"; message: string };

/** A request for advice the engine sends to the advisor port before calling `decide`. */
export interface AdviceRequest {
  system: string;
  user: string;
  /** Upper bound for the call; the engine answers `{kind:"error"}` when it is exceeded. */
  timeoutMs: number;
}

/**
 * Market inputs beyond the book that cost extra exchange requests, fetched only for strategies that
 * read them: the asset context (funding, open interest, 24 h volume), 1-minute candles, other
 * venues' funding. Without them those snapshot fields are 0 / empty.
 */
export interface MarketNeeds {
  assetContext?: boolean;
  candles?: boolean;
  referenceFunding?: boolean;
}

export interface StrategyDef<P extends Record<string, number>, S> {
  id: string;
  description: string;
  type: StrategyType;
  /** zod schema of the numeric params; every field has its default. */
  params: z.ZodType<P>;
  /** Optional market inputs the engine fetches only for strategies that read them. */
  needs?: MarketNeeds;
  /** The state before the first tick. */
  init(params: P): S;
  decide(ctx: DecisionContext, params: P, state: S): Decision<S>;
  /** Present only for strategies that consult an advisor; pure: builds the request from the same inputs. */
  adviceRequest?(ctx: DecisionContext, params: P, state: S): AdviceRequest | null;
}

/** A definition with its param/state types erased, so the catalog can hold all of them (methods are bivariant). */
export type AnyStrategy = StrategyDef<Record<string, number>, unknown>;

export function defineStrategy<P extends Record<string, number>, S>(
  def: StrategyDef<P, S>,
): StrategyDef<P, S> {
  return def;
}

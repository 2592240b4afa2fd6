import type { MarketSnapshot, Side, Tif } from "../strategies/sdk.ts";

/**
 * The engine's only view of a market: two small ports. Live and --mock runs implement both over
 * HlClient (against the real exchange or the sim world); --dry-run pairs the live market data with
 * a local paper gateway; tests use in-memory fakes.
 */

export interface InstrumentSpec {
  instrument: string;
  szDecimals: number;
  /** The exchange's asset id, where the venue knows it (refusal texts name it). */
  asset?: number;
  /** Max leverage and margin table (meta), where the venue knows them: maintenance margin follows them. */
  maxLeverage?: number;
  marginTableId?: number;
}

export interface MarketDataPort {
  spec(instrument: string): Promise<InstrumentSpec>;
  /** mid ≤ 0 when the market has no two-sided book. */
  snapshot(instrument: string): Promise<MarketSnapshot>;
  /** The market's most recent trades (any order); the --dry-run book fills resting orders from them. */
  trades?(instrument: string): Promise<TradePrint[]>;
  /**
   * `snapshot`'s answer given at once, where the venue has it at hand (the backtest's replay): the
   * engine then reads it without awaiting, so a tick with nothing to send never suspends.
   */
  snapshotNow?(instrument: string): MarketSnapshot;
  /** Whether the exchange lists the market as delisted now (read fresh; venues without delistings omit it). */
  delisted?(instrument: string): Promise<boolean>;
}

/** One trade on the venue as its public tape shows it. `side` is the taker's; `id` is unique. */
export interface TradePrint {
  id: string;
  side: Side;
  px: number;
  sz: number;
  timeMs: number;
}

/** A client order id: "0x" + 32 hex digits. */
export type Cloid = `0x${string}`;

export interface PlaceRequest {
  instrument: string;
  cloid: Cloid;
  side: Side;
  /** Decimal strings already on the exchange's price/size grid. */
  price: string;
  size: string;
  tif: Tif;
  reduceOnly: boolean;
  /** Why the strategy sent it (its intent's tag); never sent to the exchange. A backtest reports exits by it. */
  tag?: string;
}

export type PlaceOutcome =
  | { status: "resting"; oid: string }
  | { status: "filled"; oid: string }
  | { status: "rejected"; message: string };

export interface GatewayOrder {
  oid: string;
  cloid?: Cloid;
  side: Side;
  price: string;
  size: string;
  reduceOnly?: boolean;
}

/** One execution of ours as the exchange reports it. `id` is unique per fill (trade id). */
export interface GatewayFill {
  id: string;
  oid: string;
  cloid?: Cloid;
  side: Side;
  price: string;
  size: string;
  fee: string;
  timeMs: number;
  /** The exchange closed the position itself when it delisted the market (fill `dir` "Settlement"). */
  settlement?: boolean;
  /** The exchange liquidated the position (the fill's `liquidation` block: its method and the mark). */
  liquidation?: { method: "market" | "backstop"; markPx: string };
}

/** The orders a cancel could not remove, each with the venue's reason (it may still rest). */
export interface CancelResult {
  failed: { order: GatewayOrder; message: string }[];
}

export interface OrderGateway {
  place(orders: readonly PlaceRequest[]): Promise<PlaceOutcome[]>;
  /** Cancel a batch (one venue call); every refusal is reported, none is thrown. */
  cancel(instrument: string, orders: readonly GatewayOrder[]): Promise<CancelResult>;
  openOrders(instrument: string): Promise<GatewayOrder[]>;
  /**
   * Fills on the instrument with time ≥ sinceMs, oldest first. `fresh`: read them from the venue now
   * (not from a stream that may not have delivered the latest yet). `prompted`: the read answers a
   * pushed fill (`onFillPushed`), so a stream's periodic REST check does not count it.
   */
  fills(
    instrument: string,
    sinceMs: number,
    opts?: { fresh?: boolean; prompted?: boolean },
  ): Promise<GatewayFill[]>;
  /**
   * Where the venue pushes the account's fills (a stream): `listener` is called when one on the
   * instrument arrives, so the engine can take it in between ticks. Returns the detach.
   */
  onFillPushed?(instrument: string, listener: () => void): () => void;
  /** `openOrders` and `fills` answered at once, where the venue can (see MarketDataPort.snapshotNow). */
  openOrdersNow?(instrument: string): GatewayOrder[];
  fillsNow?(instrument: string, sinceMs: number): GatewayFill[];
  /**
   * Time of the account's newest fill (any instrument) seen by the last `fills` call, where the venue
   * reads the whole account's fills: the cursor may move past them so the next read skips them.
   */
  accountFillsThroughMs?(): number | undefined;
  /** The account's net position on the instrument (signed) and its entry price. */
  position(instrument: string): Promise<{ qty: string; entryPx: string }>;
  /** Dead man's switch, where the venue has one: cancel all the account's orders at `atMs` (null: disarm). */
  scheduleCancelAll?(atMs: number | null): Promise<void>;
}

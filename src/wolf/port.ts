import type { Rejection } from "../exchange/rejections.ts";
import type { BackstopPort } from "../guard/backstops.ts";
import type { WalletPosition } from "../signals/smart-money.ts";
import type { MarketDataSource } from "../signals/source.ts";

/** What WOLF needs from the exchange; `src/wolf/hl-port.ts` implements it over HlClient. */

export interface ExchangePosition {
  coin: string;
  /** signed size, decimal string */
  szi: string;
  entryPx: string;
}

export interface MarketInfo {
  instrument: string;
  szDecimals: number;
  maxLeverage: number;
}

/**
 * An order sent without an answer (timeout, connection reset after sending): what the exchange needs
 * to be asked about it, kept in state.json so a restart asks too.
 */
export interface UnresolvedOrder {
  cloid: `0x${string}`;
  sent_at_ms: number;
  /** Past this (wall ms) the exchange can no longer execute it. */
  expires_after_ms: number;
  /** The order as it was signed (exchange-specific JSON). */
  order: Record<string, unknown>;
}

export type IocResult =
  | { status: "filled"; oid: string; size: string; price: string; fee: string }
  | {
      status: "unfilled";
      message: string;
      /** Set when the exchange refused the order (not when an IOC simply found nothing to match). */
      rejection?: Rejection;
    }
  | { status: "unknown"; message: string; unresolved: UnresolvedOrder };

/** What became of an unresolved order: it filled (size and average price of its fills) or it did not. */
export type ResolvedIoc = Exclude<IocResult, { status: "unknown" }>;

export interface IocRequest {
  coin: string;
  side: "buy" | "sell";
  size: string;
  slippage: number;
  reduceOnly: boolean;
  cloid: `0x${string}`;
  /** A fresh mid to price the order off (saves asking the exchange for one); omitted: ask. */
  mid?: string;
  /**
   * Called just before the request goes out, with what to ask the exchange about the order should
   * its answer never come (a crash while it is in flight included): the caller saves it first.
   */
  onSending?: (order: UnresolvedOrder) => void;
}

export interface AccountFill {
  coin: string;
  side: "buy" | "sell";
  size: string;
  price: string;
  fee: string;
  time: number;
  oid: string;
  /** The exchange closed the position itself when it delisted the market (fill `dir` "Settlement"). */
  settlement?: boolean;
}

export interface WolfPort extends MarketDataSource {
  /** Stop orders resting on the exchange (absent: no exchange backstops, e.g. a backtest). */
  readonly backstops?: BackstopPort;
  /** coin → mid (every dex; HIP-3 coins keep their `dex:` prefix) */
  mids(): Promise<Record<string, string>>;
  positions(): Promise<ExchangePosition[]>;
  marketInfo(coin: string): Promise<MarketInfo>;
  instrumentOf(coin: string): string;
  setLeverage(coin: string, leverage: number): Promise<void>;
  /**
   * One IOC at a marketable limit; an IOC that matched nothing is "unfilled", not an exception. An
   * answer lost after sending is "unknown": resolve it before sending anything else for that coin.
   */
  ioc(req: IocRequest): Promise<IocResult>;
  /** Ask the exchange (order status by cloid, fills) what became of it; throws while it cannot tell. */
  resolveIoc(order: UnresolvedOrder): Promise<ResolvedIoc>;
  fillsSince(coin: string, startMs: number): Promise<AccountFill[]>;
  /** A watched wallet's positions, or null when the read failed. */
  walletPositions(address: string): Promise<WalletPosition[] | null>;
  /**
   * Streamed mids of every dex; returns an unsubscribe function. Rejects unless every dex is
   * subscribed. `onFailure` hears of a dropped connection or a subscription that could not be restored.
   */
  subscribeMids(
    listener: (mids: Record<string, string>) => void,
    onFailure?: (reason: string) => void,
  ): Promise<() => Promise<void>>;
}

/** Internal state of the venue. Prices, sizes and money are scaled integers (see fixed.ts). */
import type { Address } from "../venue.ts";
import type { OrderBook, Resting } from "./book.ts";
import type { CandleSeries } from "./candles.ts";
import type { FundingHistory } from "./funding-history.ts";
import type { DexSpec, MarketSpec } from "./markets.ts";
import type { OracleTwap } from "./oracle-twap.ts";

interface HourSlot {
  hour: number;
  /** Notional (micro-USDC) and base volume (lots) traded in that hour. */
  ntl: number;
  base: number;
  /** Price when the hour opened (last trade before it, or the oracle). */
  openPx: number;
}

export interface Market {
  idx: number;
  asset: number;
  coin: string;
  spec: MarketSpec;
  dex: DexSpec;
  dexIndex: number;
  szDec: number;
  pxDec: number;
  book: OrderBook<Order>;
  /** Oracle price at the price scale. */
  oracle: number;
  /** The oracle's last hour of samples (a delisting settles at their average). */
  oracleTwap: OracleTwap;
  startPx: number;
  lastPx: number | undefined;
  /** 150 s EMA of (mid − oracle), price scale: the smoothed book premium in the mark price. */
  markEma: number;
  /** Sim time the EMA was last advanced to. */
  markEmaAt: number;
  /** Sum of long position sizes (lots). */
  openInterest: number;
  /** Open interest of the rest of the market that no sim account holds (lots), set by the market model. */
  backgroundOi: number;
  hours: HourSlot[];
  /** Premium samples of the current funding hour. */
  premiumSum: number;
  premiumN: number;
  candles: CandleSeries;
  /** The latest trades (most recent last). */
  recent: RecentTrade[];
  /** Trigger orders waiting for the mark price. */
  triggers: Order[];
  fundingHistory: FundingHistory;
  /** Impact notional in micro-USDC. */
  impactNtl: number;
}

export type OrderStatus =
  | "open"
  | "triggered"
  | "filled"
  | "canceled"
  | "marginCanceled"
  | "selfTradeCanceled"
  | "reduceOnlyCanceled"
  | "siblingFilledCanceled"
  | "liquidatedCanceled"
  | "scheduledCancel"
  | "delistedCanceled"
  | "iocCancelRejected";

export type Tif = "Gtc" | "Ioc" | "Alo" | "FrontendMarket" | "LiquidationMarket";

export interface Order extends Resting {
  oid: number;
  user: Account;
  m: Market;
  isBuy: boolean;
  origSz: number;
  ts: number;
  cloid: `0x${string}` | null;
  reduceOnly: boolean;
  tif: Tif;
  builder: { b: Address; f: number } | null;
  /** Margin (micro-USDC) held for the part of this order that would increase the position. */
  reserved: number;
  status: OrderStatus;
  statusTs: number;
  /** Trigger (tp/sl) parameters; `above` = fires when the mark rises to the trigger price. */
  trigger: { px: number; isMarket: boolean; tpsl: "tp" | "sl"; above: boolean } | null;
  /**
   * TP/SL grouping (plain oids, so a snapshot stays JSON): `positionTpsl` orders are cancelled when the
   * position closes; a `normalTpsl` child waits (`waiting`) until its parent `parentOid` has filled.
   * Siblings of one group cancel each other once one of them fills.
   */
  tpsl: { grouping: TpslGrouping; parentOid: number | null; waiting: boolean; siblingOids: number[] } | null;
  /** normalTpsl children that wait for this order to fill. */
  childOids: number[];
}

export type TpslGrouping = "normalTpsl" | "positionTpsl";

export interface Position {
  szi: number;
  /** Cost basis of the open size, micro-USDC (always ≥ 0). */
  entryNtl: number;
  isolated: boolean;
  lev: number;
  /** Margin held by an isolated position, micro-USDC. */
  isoMargin: number;
  /** Funding paid (positive) since the position opened and since its size last changed, micro-USDC. */
  fundOpen: number;
  fundChange: number;
}

export interface Fill {
  m: Market;
  px: number;
  sz: number;
  isBuy: boolean;
  time: number;
  startPos: number;
  dir: string;
  closedPnl: number;
  /** Total fee incl. builder fee, micro-USDC. */
  fee: number;
  builderFee: number;
  oid: number;
  tid: number;
  crossed: boolean;
  hashSeq: number;
  cloid: `0x${string}` | null;
  liquidation?: { liquidatedUser: Address; markPx: number; method: "market" | "backstop" };
}

export interface FundingPayment {
  time: number;
  hashSeq: number;
  m: Market;
  /** Signed USDC received (negative = paid), micro. */
  usdc: number;
  szi: number;
  fundingRate: string;
  nSamples: number;
}

export interface LedgerUpdate {
  time: number;
  hash: `0x${string}`;
  delta: Record<string, unknown> & { type: string };
}

export interface LevSetting {
  lev: number;
  cross: boolean;
}

/**
 * How an account's perp dexes share USDC (`userAbstraction`): "default" (never set) and "disabled" are
 * standard mode, where each HIP-3 dex keeps its own balance; "dexAbstraction" margins the USDC HIP-3
 * dexes from the main perp balance.
 */
export type Abstraction = "default" | "disabled" | "dexAbstraction";

/** One perp clearinghouse's USDC: its free collateral and what its resting orders hold. */
export interface MarginPool {
  /** Free collateral (cross account), micro-USDC. */
  cash: number;
  /** Sum of `reserved` over the open orders margined here. */
  reserved: number;
}

/** An account; as a MarginPool, its main perp dex (and every HIP-3 dex under dex abstraction). */
export interface Account extends MarginPool {
  addr: Address;
  abstraction: Abstraction;
  /** The own balance of each HIP-3 dex (by dex index) in standard mode. */
  dexPools: Map<number, MarginPool>;
  positions: Map<number, Position>;
  leverage: Map<number, LevSetting>;
  fundAllTime: Map<number, number>;
  open: Map<number, Order>;
  /** Every known order of this user (open first-come, capped), for orderStatus / historicalOrders. */
  orders: Map<number, Order>;
  cloids: Map<string, Order>;
  fills: Fill[];
  fundings: FundingPayment[];
  ledger: LedgerUpdate[];
  builderApprovals: Map<Address, number>;
  /** Traded notional, micro-USDC. */
  volume: number;
  /** Builder fees earned as a builder, micro-USDC. */
  builderRewards: number;
  /** USDC in the spot account (usdClassTransfer), micro-USDC. */
  spotUsdc: number;
  /** Open positionTpsl orders (a closing position only looks for them when there are some). */
  positionTpsl: number;
  /** The referral code this account created (registerReferrer), if any. */
  referralCode: string | null;
  /** Who referred this account (setReferrer): the code's owner, the code, and when. */
  referredBy: ReferredBy | null;
}

export interface ReferredBy {
  referrer: Address;
  code: string;
  time: number;
  /** Fees paid since (micro-USDC) that earned the referrer a reward: `cumRewardedFeesSinceReferred`. */
  rewardedFees: number;
  /** The referrer's rewards from them, micro-USDC: `cumFeesRewardedToReferrer`. */
  feesToReferrer: number;
}

interface RecentTrade {
  px: number;
  sz: number;
  time: number;
  takerIsBuy: boolean;
  hashSeq: number;
  tid: number;
  buyer: Address;
  seller: Address;
}

export interface BuilderFillRow {
  time: string;
  user: Address;
  coin: string;
  side: "Bid" | "Ask";
  px: string;
  sz: string;
  crossed: boolean;
  special_trade_type: string;
  tif: string;
  is_trigger: boolean;
  counterparty: Address;
  closed_pnl: string;
  twap_id: string;
  builder_fee: string;
}

/**
 * The venue's state machine: accounts, margin, order placement and price-time matching. Info
 * rendering lives in info.ts, exchange-action parsing in actions.ts, time-driven work in clockwork.ts.
 * Everything is driven by the caller's clock values: no Date.now, no Math.random.
 */
import type { Address, VenueEvent, VenueInterest, WireOrder } from "../venue.ts";
import { AgentRegistry } from "./agents.ts";
import { OrderBook } from "./book.ts";
import type { Candle } from "./candle-intervals.ts";
import { INTERVALS } from "./candle-intervals.ts";
import { CandleSeries } from "./candles.ts";
import { fmtScaled, mulDiv, parseScaled } from "./fixed.ts";
import { FundingHistory } from "./funding-history.ts";
import { txHash } from "./hash.ts";
import { markBoundPrice } from "./liquidation-rules.ts";
import { maintenanceMargin } from "./margin.ts";
import {
  assetId,
  DEFAULT_IMPACT_NOTIONAL_USD,
  type DexSpec,
  HIP3_DEXES,
  MAIN_DEX,
  type MarketSpec,
} from "./markets.ts";
import { OracleTwap } from "./oracle-twap.ts";
import {
  aloRefusal,
  checkOrder,
  crossPositionMargin,
  crossWithdrawable,
  defaultLeverage,
  defaultLimits,
  freeCollateral,
  haltedRefusal,
  iocNoMatchText,
  isolatedMarginReleased,
  isolatedOpenMargin,
  type MarketLimits,
  marginRefusal,
  maxPositionRefusal,
  noLiquidityRefusal,
  openInterestRefusal,
  openOrdersRefusal,
  orderMargin,
  positionAfter,
  positionIncrease,
  restingMarginReleased,
  unrealizedPnl,
  validPx,
} from "./order-rules.ts";
import { feeWithReferral } from "./referral-fees.ts";
import { renderCandle, renderFill, renderOpenOrder } from "./render.ts";
import {
  triggeredMarketLimit,
  triggeredReduceOnlySize,
  triggerPriceRefusal,
  triggerReached,
  triggersAbove,
} from "./trigger-rules.ts";
import type {
  Account,
  BuilderFillRow,
  Fill,
  LedgerUpdate,
  LevSetting,
  MarginPool,
  Market,
  Order,
  OrderStatus,
  Position,
  Tif,
  TpslGrouping,
} from "./types.ts";

const MICRO = 1_000_000;
/** Most recent fills / orders reachable per user, as on Hyperliquid. */
const MAX_FILLS = 10_000;
const MAX_ORDERS = 2_000;
/** Trades kept per market for recentTrades. */
export const RECENT_TRADES = 100;
/** Builder fees above 0.1% (100 tenths of a bp) are refused on perps. */
export const MAX_PERP_BUILDER_FEE = 100;
/** The backstop liquidator that takes over liquidated positions at the mark price. */
export const LIQUIDATOR: Address = "0x000000000000000000000000000000000000dead";

export type OrderResult =
  | { resting: { oid: number; cloid?: string } }
  | { filled: { totalSz: string; avgPx: string; oid: number; cloid?: string } }
  | { error: string }
  /** TP/SL of a group (`normalTpsl` / `positionTpsl`): no oid in the answer, as on the exchange. */
  | "waitingForFill"
  | "waitingForTrigger";

/** How a TP/SL order was grouped, and (normalTpsl) the order it waits for. */
interface TpslPlacement {
  grouping: TpslGrouping;
  parent: Order | null;
}

interface CoreOptions {
  seed: number;
  startingBalance: number;
  markets: MarketSpec[];
  /** Open-interest cap and upper margin tier per coin (defaults in order-rules.ts). */
  limits?: Record<string, MarketLimits>;
  /** Accept `scheduleCancel` from accounts that have not traded the exchange's $1M (tests). */
  scheduleCancelAnyVolume?: boolean;
}

export class VenueCore {
  readonly markets: Market[] = [];
  readonly byAsset = new Map<number, Market>();
  readonly byCoin = new Map<string, Market>();
  readonly dexes: DexSpec[] = [MAIN_DEX, ...HIP3_DEXES];
  readonly accounts = new Map<string, Account>();
  readonly agents = new AgentRegistry();
  /** Dead man's switch: user → time at which all their orders are cancelled. */
  readonly scheduledCancels = new Map<string, number>();
  /** Referral codes (registerReferrer), upper-cased → the account that created it. */
  readonly referralCodes = new Map<string, Address>();
  /** Dead man's switch firings per user in one UTC day (the exchange allows 10 a day). */
  readonly scheduledCancelsFired = new Map<string, { day: number; n: number }>();
  readonly listeners: { fn: (e: VenueEvent) => void; interest: VenueInterest | undefined }[] = [];
  /** Builder → UTC day (YYYYMMDD) → rows of the per-builder fill file. */
  readonly builderRows = new Map<string, Map<string, BuilderFillRow[]>>();
  /** Subscriber callbacks that threw (they are isolated from the venue and from each other). */
  listenerErrors = 0;
  /** Notional traded on the whole venue per UTC day (days since the epoch), micro-USDC. */
  readonly dailyVolume = new Map<number, number>();
  /** Exchange fees collected (not counting builder fees, which go to builders), micro-USDC. */
  feesCollected = 0;
  nextOid = 1;
  /** Trigger orders waiting across all markets (skips the scan when zero). */
  triggerCount = 0;
  nextTid = 1;
  hashSeq = 0;
  /** Set while a liquidation order matches: its fills are marked with it. */
  liquidating: Fill["liquidation"] | null = null;
  /** Set while a delisted market's positions are settled (delisting.ts): fills say "Settlement". */
  settling = false;
  /** Markets delisted while the venue ran, with the price their positions settled at (price scale). */
  readonly delistings = new Map<Market, { px: number; time: number }>();
  /**
   * Set while a fired trigger order or a liquidation matches: the mark it acts on. A level priced
   * better than the mark for the taker (a quote the house has not yet moved after a price gap) fills
   * at the mark, so these orders meet a book consistent with the mark that fired them.
   */
  markBound: number | null = null;
  /** User → end of the cooldown that follows a partial liquidation (liquidation.ts). */
  readonly liquidationCooldown = new Map<string, number>();
  /** Positions closed since the last trigger pass: their positionTpsl orders are cancelled then. */
  private closedPositions: [Account, Market][] = [];
  /** The order the last accepted placement created (modify answers with its oid). */
  lastPlaced: Order | null = null;
  readonly scheduleCancelAnyVolume: boolean;
  /** Events of the action in progress; flushed once it completes. */
  private pending: VenueEvent[] = [];
  private touchedBooks = new Set<Market>();
  readonly seed: number;
  readonly startingBalance: number;
  private readonly limits: Record<string, MarketLimits>;

  constructor(opts: CoreOptions) {
    this.seed = opts.seed;
    this.startingBalance = opts.startingBalance;
    this.limits = opts.limits ?? {};
    this.scheduleCancelAnyVolume = opts.scheduleCancelAnyVolume ?? false;
    const perDexIndex = new Map<string, number>();
    for (const spec of opts.markets) {
      const dexIndex = this.dexes.findIndex((d) => d.name === spec.dex);
      if (dexIndex < 0) throw new Error(`market ${spec.name}: unknown dex "${spec.dex}"`);
      if (dexIndex > 0 && !spec.name.startsWith(`${spec.dex}:`))
        throw new Error(`HIP-3 market ${spec.name} must be prefixed "${spec.dex}:"`);
      const i = perDexIndex.get(spec.dex) ?? 0;
      perDexIndex.set(spec.dex, i + 1);
      const pxDec = 6 - spec.szDecimals;
      const start = parseScaled(spec.startPx, pxDec);
      if (!start) throw new Error(`market ${spec.name}: bad startPx ${spec.startPx}`);
      const m: Market = {
        idx: this.markets.length,
        asset: assetId(dexIndex, i),
        coin: spec.name,
        spec,
        dex: this.dexes[dexIndex]!,
        dexIndex,
        szDec: spec.szDecimals,
        pxDec,
        book: new OrderBook<Order>(),
        oracle: start.scaled,
        oracleTwap: new OracleTwap(),
        startPx: start.scaled,
        lastPx: undefined,
        markEma: 0,
        markEmaAt: 0,
        openInterest: 0,
        backgroundOi: 0,
        hours: [],
        premiumSum: 0,
        premiumN: 0,
        candles: new CandleSeries(),
        triggers: [],
        recent: [],
        fundingHistory: new FundingHistory(),
        impactNtl: (spec.impactNotionalUsd ?? DEFAULT_IMPACT_NOTIONAL_USD) * MICRO,
      };
      this.markets.push(m);
      this.byAsset.set(m.asset, m);
      this.byCoin.set(m.coin, m);
    }
  }

  /** Markets whose past is loaded when first needed, and how (see SimVenue.deferPast). */
  private readonly deferredPasts = new Map<Market, () => void>();

  deferPast(m: Market, load: () => void): void {
    this.deferredPasts.set(m, load);
  }

  /** Load the market's past now if it is still waiting: before anything reads or extends it. */
  ensurePast(m: Market): void {
    if (this.deferredPasts.size === 0) return;
    const load = this.deferredPasts.get(m);
    if (!load) return;
    this.deferredPasts.delete(m);
    load();
  }

  /** Open-interest cap and position limit of a market (also what `perpDexs` publishes as its cap). */
  limitsOf(m: Market): MarketLimits {
    return this.limits[m.coin] ?? defaultLimits(m);
  }

  // ---------------------------------------------------------------- events

  emit(e: VenueEvent): void {
    this.pending.push(e);
  }

  get observed(): boolean {
    return this.listeners.length > 0;
  }

  /** Whether some subscriber wants this user's account events (otherwise they are not rendered). */
  observedUser(user: Address): boolean {
    return this.listeners.some((l) => l.interest === undefined || l.interest.user(user));
  }

  /** Whether some subscriber wants this coin's trades and candles. */
  observedCoin(coin: string): boolean {
    return this.listeners.some((l) => l.interest === undefined || l.interest.coin(coin));
  }

  flush(): void {
    if (this.listeners.length === 0) {
      this.pending.length = 0;
      this.touchedBooks.clear();
      return;
    }
    const dexes = new Set<string>();
    for (const m of this.touchedBooks) {
      this.pending.push({ kind: "l2Book", coin: m.coin });
      dexes.add(m.dex.name);
    }
    for (const d of dexes) this.pending.push({ kind: "allMids", dex: d });
    this.touchedBooks.clear();
    const events = this.pending;
    this.pending = [];
    const listeners = [...this.listeners];
    for (const e of events) {
      for (const l of listeners) {
        try {
          l.fn(e);
        } catch {
          // The action is already applied: a failing subscriber must not turn it into an error.
          this.listenerErrors++;
        }
      }
    }
  }

  // ---------------------------------------------------------------- accounts

  account(addr: string): Account {
    const key = addr.toLowerCase();
    let a = this.accounts.get(key);
    if (!a) {
      a = {
        addr: key as Address,
        cash: 0,
        abstraction: "default",
        dexPools: new Map(),
        positions: new Map(),
        leverage: new Map(),
        fundAllTime: new Map(),
        reserved: 0,
        open: new Map(),
        orders: new Map(),
        cloids: new Map(),
        fills: [],
        fundings: [],
        ledger: [],
        builderApprovals: new Map(),
        volume: 0,
        builderRewards: 0,
        positionTpsl: 0,
        spotUsdc: 0,
        referralCode: null,
        referredBy: null,
      };
      this.accounts.set(key, a);
    }
    return a;
  }

  /** An account a user refers to; a new one receives the starting balance (as a ledger deposit). */
  userAccount(addr: string, now: number): Account {
    const key = addr.toLowerCase();
    const existing = this.accounts.get(key);
    if (existing) return existing;
    const a = this.account(key);
    if (this.startingBalance > 0 && key !== LIQUIDATOR)
      this.credit(a, this.startingBalance, now, { type: "deposit" });
    return a;
  }

  /** Move `usdc` micro into an account's cash and record it in the ledger. */
  credit(a: Account, usdc: number, now: number, delta: { type: string; [k: string]: unknown }): void {
    a.cash += usdc;
    this.ledger(a, now, { ...delta, usdc: fmtScaled(usdc, 6) });
  }

  ledger(a: Account, now: number, delta: { type: string; [k: string]: unknown }): LedgerUpdate {
    const u: LedgerUpdate = { time: now, hash: txHash(this.seed, ++this.hashSeq), delta };
    a.ledger.push(u);
    if (this.observedUser(a.addr)) this.emit({ kind: "ledger", user: a.addr, update: u });
    return u;
  }

  levSetting(a: Account, m: Market): LevSetting {
    let s = a.leverage.get(m.idx);
    if (!s) {
      s = { lev: defaultLeverage(m.spec.maxLeverage), cross: !m.spec.onlyIsolated };
      a.leverage.set(m.idx, s);
    }
    return s;
  }

  // ---------------------------------------------------------------- prices

  /**
   * Mark price as Hyperliquid forms it: the median of (oracle + 150 s EMA of mid − oracle), the median
   * of best bid, best ask and last trade, and an external reference — here the oracle, which in the sim
   * is the index the external venues would track. A book pushed away from the index moves the mark
   * only as far as the smoothed premium follows it.
   */
  markPx(m: Market): number {
    const o = m.oracle;
    const bid = m.book.bids.bestPx();
    const ask = m.book.asks.bestPx();
    // Prices live on an integer scale: the smoothed premium is rounded onto it.
    const local =
      bid === undefined || ask === undefined ? o : median3(bid, ask, m.lastPx ?? Math.round((bid + ask) / 2));
    return median3(o + Math.round(m.markEma), local, o);
  }

  /**
   * Which clearinghouse margins dex `di` for this account: 0 (the main perp balance) for the main dex
   * and, under dex abstraction, every HIP-3 dex (all of the sim's are USDC-collateralised); else the
   * dex's own.
   */
  poolIndex(a: Account, di: number): number {
    return di === 0 || a.abstraction === "dexAbstraction" ? 0 : di;
  }

  /** The USDC that margins dex `di` for this account (see `poolIndex`). */
  pool(a: Account, di: number): MarginPool {
    const k = this.poolIndex(a, di);
    if (k === 0) return a;
    let p = a.dexPools.get(k);
    if (!p) {
      p = { cash: 0, reserved: 0 };
      a.dexPools.set(k, p);
    }
    return p;
  }

  /** Sums over the cross positions margined with dex `di`'s pool, at mark, micro-USDC. */
  crossSummary(
    a: Account,
    di = 0,
  ): {
    upnl: number;
    ntl: number;
    signedNtl: number;
    marginUsed: number;
    maint: number;
  } {
    let upnl = 0;
    let ntl = 0;
    let signedNtl = 0;
    let marginUsed = 0;
    let maint = 0;
    const k = this.poolIndex(a, di);
    for (const [idx, p] of a.positions) {
      if (p.isolated) continue;
      const m = this.markets[idx]!;
      if (this.poolIndex(a, m.dexIndex) !== k) continue;
      const mark = this.markPx(m);
      const value = Math.abs(p.szi) * mark;
      ntl += value;
      signedNtl += p.szi * mark;
      upnl += unrealizedPnl(p, mark);
      marginUsed += crossPositionMargin(p.szi, mark, p.lev);
      maint += maintenanceMargin(m.spec, value);
    }
    return { upnl, ntl, signedNtl, marginUsed, maint };
  }

  /** Collateral free for new orders (order-rules.ts `freeCollateral`, which the dry-run book shares). */
  available(a: Account, di = 0): number {
    const k = this.poolIndex(a, di);
    const cross: { position: Position; mark: number }[] = [];
    for (const [idx, p] of a.positions) {
      const m = this.markets[idx]!;
      if (!p.isolated && this.poolIndex(a, m.dexIndex) === k)
        cross.push({ position: p, mark: this.markPx(m) });
    }
    const pool = this.pool(a, di);
    return freeCollateral(pool.cash, cross, pool.reserved);
  }

  /**
   * USDC that may leave the account now, micro: `withdrawable` in clearinghouseState and the ceiling
   * of every transfer out (order-rules.ts `crossWithdrawable`).
   */
  withdrawable(a: Account, di = 0): number {
    const s = this.crossSummary(a, di);
    const pool = this.pool(a, di);
    return crossWithdrawable(pool.cash + s.upnl, pool.reserved, s.marginUsed, s.ntl);
  }

  positionUpnl(p: Position, mark: number): number {
    return unrealizedPnl(p, mark);
  }

  // ---------------------------------------------------------------- orders

  placeOrder(
    a: Account,
    w: WireOrder,
    builder: { b: Address; f: number } | null,
    now: number,
    hashSeq: number,
    tpsl: TpslPlacement | null = null,
  ): OrderResult {
    const m = this.byAsset.get(w.a);
    if (!m) return { error: `Unknown asset ${w.a}.` };
    const halted = haltedRefusal(m.spec.isDelisted === true);
    if (halted) return { error: halted };
    let tif: Tif = "Gtc";
    let trigger: Order["trigger"] = null;
    if ("trigger" in w.t) {
      const tr = w.t.trigger;
      const tp = parseScaled(tr?.triggerPx, m.pxDec);
      if (!tp || !validPx(tp)) return { error: "Order has invalid trigger price." };
      if (tr.tpsl !== "tp" && tr.tpsl !== "sl") return { error: "Order has invalid tpsl." };
      trigger = {
        px: tp.scaled,
        isMarket: tr.isMarket === true,
        tpsl: tr.tpsl,
        above: triggersAbove(tr.tpsl, w.b === true),
      };
    } else {
      tif = w.t.limit?.tif;
      if (tif !== "Gtc" && tif !== "Ioc" && tif !== "Alo" && tif !== "FrontendMarket")
        return { error: "Order has invalid tif." };
    }
    const isBuy = w.b === true;
    const pos = a.positions.get(m.idx);
    const szi = pos ? pos.szi : 0;
    const asset = m.asset;
    const tooMany = openOrdersRefusal(a, w.r === true || trigger !== null);
    if (tooMany) return { error: tooMany };
    const mark = this.markPx(m);
    const checked = checkOrder({
      asset,
      pxDec: m.pxDec,
      szDec: m.szDec,
      px: w.p,
      sz: w.s,
      isBuy,
      reduceOnly: w.r === true,
      trigger: trigger !== null,
      szi,
      reference: mark,
    });
    if ("error" in checked) return checked;
    const { px } = checked;
    const sz = checked.sz;
    const cloid = w.c ? (w.c.toLowerCase() as `0x${string}`) : null;
    if (cloid) {
      if (!/^0x[0-9a-f]{32}$/.test(cloid)) return { error: "Order has invalid cloid." };
      if (a.cloids.get(cloid)?.status === "open") return { error: "Duplicate cloid." };
    }
    if (trigger) {
      const early = triggerPriceRefusal(trigger.above, mark, trigger.px, asset);
      if (early) return { error: early };
    }
    if (!trigger && tif === "Alo") {
      const cross = aloRefusal(isBuy, px, m.book.bids.bestPx(), m.book.asks.bestPx(), m.pxDec, asset);
      if (cross) return { error: cross };
    }
    if (!trigger && tif === "FrontendMarket") {
      const empty = noLiquidityRefusal(m, isBuy);
      if (empty) return { error: empty };
    }
    if (!w.r && !trigger) {
      const short = marginRefusal(
        this.orderMargin(a, m, isBuy, px, sz),
        this.available(a, m.dexIndex),
        asset,
      );
      if (short) return { error: short };
    }
    if (!w.r && !trigger) {
      const limits = this.limitsOf(m);
      const increase = positionIncrease(szi, isBuy, sz);
      const lev = this.levSetting(a, m).lev;
      const refusal =
        maxPositionRefusal(m, limits, positionAfter(szi, isBuy, sz), increase, lev, mark) ??
        openInterestRefusal(m, limits, increase, mark);
      if (refusal) return { error: refusal };
    }

    const o: Order = {
      oid: this.nextOid++,
      user: a,
      m,
      isBuy,
      px,
      sz,
      origSz: sz,
      live: false,
      ts: now,
      cloid,
      reduceOnly: w.r === true,
      tif,
      builder,
      reserved: 0,
      status: "open",
      statusTs: now,
      trigger,
      tpsl: null,
      childOids: [],
    };
    this.remember(a, o);
    this.lastPlaced = o;
    if (trigger) {
      if (tpsl) {
        const parent = tpsl.grouping === "normalTpsl" ? tpsl.parent : null;
        o.tpsl = { grouping: tpsl.grouping, parentOid: parent?.oid ?? null, waiting: false, siblingOids: [] };
        if (tpsl.grouping === "positionTpsl") a.positionTpsl++;
        if (parent) {
          // Waits for its parent: placed for the size the parent fills once it is done.
          o.tpsl.waiting = true;
          parent.childOids.push(o.oid);
          if (parent.status === "open") return "waitingForFill";
          this.releaseChildren(parent, now);
          return o.status === "open" ? "waitingForTrigger" : { error: "Parent order did not fill." };
        }
        this.armTrigger(o);
        return "waitingForTrigger";
      }
      this.armTrigger(o);
      return { resting: { oid: o.oid, ...(cloid ? { cloid } : {}) } };
    }
    return this.submit(o, now, hashSeq);
  }

  /**
   * Put back an order a modify cancelled when its replacement is refused, so that a refused modify
   * changes nothing. A book order rests again at the back of its level; a waiting child keeps waiting.
   */
  reinstate(o: Order, now: number): void {
    o.status = "open";
    o.statusTs = now;
    if (o.tpsl?.grouping === "positionTpsl") o.user.positionTpsl++;
    if (o.tpsl?.waiting) return;
    if (o.trigger) this.armTrigger(o);
    else {
      this.rest(o);
      this.orderUpdate(o);
    }
  }

  /** A trigger order starts waiting for the mark. */
  private armTrigger(o: Order): void {
    o.m.triggers.push(o);
    this.triggerCount++;
    o.user.open.set(o.oid, o);
    this.orderUpdate(o);
  }

  /** Orders placed together in one TP/SL group cancel each other once one of them fills. */
  linkSiblings(orders: readonly Order[]): void {
    for (const o of orders) if (o.tpsl) o.tpsl.siblingOids = orders.filter((x) => x !== o).map((x) => x.oid);
  }

  /** A parent that is done releases its normalTpsl children: armed for what it filled, or cancelled. */
  private releaseChildren(parent: Order, now: number): void {
    const a = parent.user;
    const filled = parent.origSz - parent.sz;
    for (const oid of parent.childOids) {
      const c = a.orders.get(oid);
      if (c?.status !== "open" || !c.tpsl?.waiting) continue;
      c.tpsl.waiting = false;
      if (filled <= 0) {
        this.finish(c, "canceled", now);
        continue;
      }
      if (c.sz === 0 || c.sz > filled) {
        c.sz = filled;
        c.origSz = filled;
      }
      this.armTrigger(c);
    }
  }

  /** A TP/SL that filled cancels the rest of its group. */
  private cancelSiblings(o: Order, now: number): void {
    for (const oid of o.tpsl!.siblingOids) {
      const s = o.user.orders.get(oid);
      if (s && s.status === "open") this.finish(s, "siblingFilledCanceled", now);
    }
  }

  /** Follow-ups of an order reaching a final status: its waiting children, its TP/SL siblings. */
  private concluded(o: Order, now: number): void {
    if (o.tpsl?.grouping === "positionTpsl") o.user.positionTpsl--;
    if (o.childOids.length > 0) this.releaseChildren(o, now);
    if (o.tpsl && o.status === "filled" && o.tpsl.siblingOids.length > 0) this.cancelSiblings(o, now);
  }

  /** positionTpsl orders of positions that closed are cancelled, as the exchange does. */
  private cancelOrphanedPositionTpsl(now: number): void {
    const closed = this.closedPositions;
    this.closedPositions = [];
    for (const [a, m] of closed) {
      if (a.positions.has(m.idx)) continue;
      for (const o of [...a.open.values()])
        if (o.m === m && o.tpsl?.grouping === "positionTpsl") this.finish(o, "canceled", now);
    }
  }

  /** Initial margin the part of an order that would increase the position needs (micro-USDC). */
  private orderMargin(a: Account, m: Market, isBuy: boolean, px: number, sz: number): number {
    const pos = a.positions.get(m.idx);
    return orderMargin(pos ? pos.szi : 0, isBuy, px, sz, this.levSetting(a, m).lev);
  }

  /** Whether the part of an order that would increase the position fits the free collateral. */
  private affordable(a: Account, m: Market, isBuy: boolean, px: number, sz: number): boolean {
    return (
      marginRefusal(this.orderMargin(a, m, isBuy, px, sz), this.available(a, m.dexIndex), m.asset) === null
    );
  }

  /** Match an accepted order, then rest (Gtc/Alo) or cancel (Ioc) what is left. */
  private submit(o: Order, now: number, hashSeq: number): OrderResult {
    const m = o.m;
    const { filled, ntl } = this.match(o, now, hashSeq);
    const cl = o.cloid ? { cloid: o.cloid } : {};
    if (o.sz > 0 && (o.tif === "Gtc" || o.tif === "Alo")) {
      this.rest(o);
      this.orderUpdate(o);
      return { resting: { oid: o.oid, ...cl } };
    }
    if (filled === 0) {
      this.finish(o, "iocCancelRejected", now);
      return { error: iocNoMatchText(m.asset) };
    }
    this.finish(o, o.sz === 0 ? "filled" : "canceled", now);
    return {
      filled: { totalSz: fmtScaled(filled, m.szDec), avgPx: avgPx(ntl, filled, m.pxDec), oid: o.oid, ...cl },
    };
  }

  /** A liquidation's reduce-only market order; its fills (both sides) carry the liquidation details. */
  liquidateIntoBook(
    a: Account,
    m: Market,
    isBuy: boolean,
    px: number,
    sz: number,
    mark: number,
    now: number,
  ): void {
    const o: Order = {
      oid: this.nextOid++,
      user: a,
      m,
      isBuy,
      px,
      sz,
      origSz: sz,
      live: false,
      ts: now,
      cloid: null,
      reduceOnly: true,
      tif: "LiquidationMarket",
      builder: null,
      reserved: 0,
      status: "open",
      statusTs: now,
      trigger: null,
      tpsl: null,
      childOids: [],
    };
    this.remember(a, o);
    this.liquidating = { liquidatedUser: a.addr, markPx: mark, method: "market" };
    this.markBound = mark;
    try {
      this.submit(o, now, ++this.hashSeq);
    } finally {
      this.liquidating = null;
      this.markBound = null;
    }
  }

  /** Fire every trigger order whose condition holds at the current mark price. */
  checkTriggers(now: number): void {
    if (this.closedPositions.length > 0) this.cancelOrphanedPositionTpsl(now);
    if (this.triggerCount === 0) return;
    for (const m of this.markets) {
      if (m.triggers.length === 0) continue;
      const mark = this.markPx(m);
      for (const o of [...m.triggers]) {
        const t = o.trigger!;
        if (o.status !== "open" || !triggerReached(t.above, mark, t.px)) continue;
        // A market order meeting an empty side would be lost; the house book is only ever empty
        // between its cancel and its re-quote, so the trigger waits for the next pass.
        const empty = t.isMarket && m.book.side(!o.isBuy).bestPx() === undefined;
        if (empty && !(o.reduceOnly && reducible(o.user, m, o.isBuy) === 0)) continue;
        this.fire(o, mark, now);
      }
    }
  }

  /** A triggered order keeps its oid and becomes a market (Ioc, 10% slippage) or limit (Gtc) order. */
  private fire(o: Order, mark: number, now: number): void {
    this.dropTrigger(o);
    o.status = "triggered";
    o.statusTs = now;
    this.orderUpdate(o);
    const a = o.user;
    if (o.reduceOnly) {
      const allowed = reducible(a, o.m, o.isBuy);
      if (allowed === 0) {
        this.finish(o, "reduceOnlyCanceled", now);
        return;
      }
      o.sz = triggeredReduceOnlySize(o.sz, allowed);
      if (o.origSz === 0) o.origSz = o.sz;
    }
    if (o.trigger!.isMarket) {
      o.px = triggeredMarketLimit(o.isBuy, mark);
      o.tif = "FrontendMarket";
    }
    if (!o.reduceOnly && !this.affordable(a, o.m, o.isBuy, o.px, o.sz)) {
      this.finish(o, "marginCanceled", now);
      return;
    }
    o.status = "open";
    this.markBound = mark;
    try {
      this.submit(o, now, ++this.hashSeq);
    } finally {
      this.markBound = null;
    }
  }

  private dropTrigger(o: Order): void {
    const list = o.m.triggers;
    const i = list.indexOf(o);
    if (i >= 0) {
      list.splice(i, 1);
      this.triggerCount--;
    }
    o.user.open.delete(o.oid);
  }

  private rest(o: Order): void {
    const a = o.user;
    const pos = a.positions.get(o.m.idx);
    const szi = pos ? pos.szi : 0;
    if (!o.reduceOnly) {
      o.reserved = orderMargin(szi, o.isBuy, o.px, o.sz, this.levSetting(a, o.m).lev);
      this.pool(a, o.m.dexIndex).reserved += o.reserved;
    }
    o.live = true;
    o.m.book.side(o.isBuy).add(o);
    a.open.set(o.oid, o);
    this.touchedBooks.add(o.m);
  }

  private remember(a: Account, o: Order): void {
    a.orders.set(o.oid, o);
    if (o.cloid) a.cloids.set(o.cloid, o);
    if (a.orders.size > 2 * MAX_ORDERS) {
      for (const [oid, old] of a.orders) {
        if (a.orders.size <= MAX_ORDERS) break;
        if (old.status === "open") continue;
        a.orders.delete(oid);
        if (old.cloid && a.cloids.get(old.cloid) === old) a.cloids.delete(old.cloid);
      }
    }
  }

  /** Order leaves the book (or never rested) with a final status. */
  finish(o: Order, status: OrderStatus, now: number): void {
    if (o.trigger && o.status === "open" && !o.live) this.dropTrigger(o);
    if (o.live) {
      o.m.book.side(o.isBuy).remove(o);
      this.touchedBooks.add(o.m);
    }
    if (o.reserved) {
      this.pool(o.user, o.m.dexIndex).reserved -= o.reserved;
      o.reserved = 0;
    }
    o.user.open.delete(o.oid);
    o.status = status;
    o.statusTs = now;
    this.orderUpdate(o);
    this.concluded(o, now);
  }

  cancel(a: Account, o: Order | undefined, now: number): "success" | { error: string } {
    if (!o || o.user !== a || o.status !== "open")
      return { error: "Order was never placed, already canceled, or filled." };
    this.finish(o, "canceled", now);
    return "success";
  }

  private orderUpdate(o: Order): void {
    if (!this.observedUser(o.user.addr)) return;
    this.emit({
      kind: "orderUpdates",
      user: o.user.addr,
      updates: [{ order: renderOpenOrder(o), status: o.status, statusTimestamp: o.statusTs }],
    });
  }

  // ---------------------------------------------------------------- matching

  private match(taker: Order, now: number, hashSeq: number): { filled: number; ntl: number } {
    const m = taker.m;
    const side = m.book.side(!taker.isBuy);
    let filled = 0;
    let ntl = 0;
    while (taker.sz > 0) {
      const lvl = side.best();
      if (!lvl) break;
      if (taker.isBuy ? lvl.px > taker.px : lvl.px < taker.px) break;
      const maker = lvl.front();
      if (!maker) break;
      if (maker.user === taker.user) {
        this.finish(maker, "selfTradeCanceled", now);
        continue;
      }
      let q = Math.min(taker.sz, maker.sz);
      if (maker.reduceOnly) {
        const allowed = reducible(maker.user, m, maker.isBuy);
        if (allowed === 0) {
          this.finish(maker, "reduceOnlyCanceled", now);
          continue;
        }
        if (allowed < q) q = allowed;
      }
      if (taker.reduceOnly) {
        const allowed = reducible(taker.user, m, taker.isBuy);
        if (allowed === 0) break;
        if (allowed < q) q = allowed;
      }
      // A stale level better than the mark fills at the mark, never past the taker's own limit.
      const bound = this.markBound;
      const px = bound === null ? lvl.px : markBoundPrice(taker.isBuy, taker.px, lvl.px, bound);
      this.trade(maker, taker, px, q, now, hashSeq);
      if (maker.reserved) {
        const rel = restingMarginReleased(maker.reserved, q, maker.sz);
        maker.reserved -= rel;
        this.pool(maker.user, m.dexIndex).reserved -= rel;
      }
      side.fill(lvl, maker, q);
      taker.sz -= q;
      filled += q;
      ntl += px * q;
      if (maker.sz === 0) {
        maker.user.open.delete(maker.oid);
        maker.status = "filled";
        maker.statusTs = now;
        this.orderUpdate(maker);
        this.concluded(maker, now);
      }
    }
    if (filled > 0) this.touchedBooks.add(m);
    return { filled, ntl };
  }

  private trade(maker: Order, taker: Order, px: number, q: number, now: number, hashSeq: number): void {
    const m = maker.m;
    const tid = this.nextTid++;
    const fm = this.settle(
      maker.user,
      m,
      maker.isBuy,
      px,
      q,
      m.dex.makerFee,
      maker.builder,
      now,
      false,
      maker.oid,
      maker.cloid,
      tid,
      hashSeq,
    );
    const ft = this.settle(
      taker.user,
      m,
      taker.isBuy,
      px,
      q,
      m.dex.takerFee,
      taker.builder,
      now,
      true,
      taker.oid,
      taker.cloid,
      tid,
      hashSeq,
    );
    if (maker.builder && fm.builderFee > 0) this.builderCredit(maker, taker.user.addr, fm, now);
    if (taker.builder && ft.builderFee > 0) this.builderCredit(taker, maker.user.addr, ft, now);
    this.recordTrade(m, px, q, now);
    const buyer = taker.isBuy ? taker.user.addr : maker.user.addr;
    const seller = taker.isBuy ? maker.user.addr : taker.user.addr;
    m.recent.push({ px, sz: q, time: now, takerIsBuy: taker.isBuy, hashSeq, tid, buyer, seller });
    if (m.recent.length > 2 * RECENT_TRADES) m.recent.splice(0, m.recent.length - RECENT_TRADES);
    if (this.observedCoin(m.coin)) {
      this.emit({
        kind: "trades",
        coin: m.coin,
        trades: [
          {
            coin: m.coin,
            side: taker.isBuy ? "B" : "A",
            px: fmtScaled(px, m.pxDec),
            sz: fmtScaled(q, m.szDec),
            time: now,
            hash: txHash(this.seed, hashSeq),
            tid,
            users: [buyer, seller],
          },
        ],
      });
    }
  }

  /** Market statistics and candles after a trade. */
  recordTrade(m: Market, px: number, q: number, now: number): void {
    this.ensurePast(m);
    const slot = this.hourSlot(m, now);
    slot.ntl += px * q;
    slot.base += q;
    const day = Math.floor(now / 86_400_000);
    this.dailyVolume.set(day, (this.dailyVolume.get(day) ?? 0) + px * q);
    m.lastPx = px;
    m.candles.trade(now, px, q);
    if (this.observedCoin(m.coin)) {
      for (const interval of INTERVALS) {
        const c = m.candles.current(interval);
        if (c) this.emit({ kind: "candle", coin: m.coin, interval, candle: renderCandle(m, interval, c) });
      }
    }
  }

  /** A recorded minute played back (prices at the price scale, volume in lots): candles, last price, volume. */
  replayCandle(m: Market, k: Candle): void {
    this.ensurePast(m);
    const at = k.t + 60_000 - 1;
    const slot = this.hourSlot(m, at);
    const px = Math.round((k.o + k.c) / 2);
    slot.ntl += px * k.v;
    slot.base += k.v;
    m.lastPx = k.c;
    m.candles.replayMinute(k);
    if (this.observed) {
      for (const interval of INTERVALS) {
        const c = m.candles.current(interval);
        if (c) this.emit({ kind: "candle", coin: m.coin, interval, candle: renderCandle(m, interval, c) });
      }
    }
  }

  hourSlot(m: Market, now: number): { hour: number; ntl: number; base: number; openPx: number } {
    const hour = Math.floor(now / 3_600_000);
    const k = hour % 24;
    let slot = m.hours[k];
    if (!slot || slot.hour !== hour) {
      slot = { hour, ntl: 0, base: 0, openPx: m.lastPx ?? m.oracle };
      m.hours[k] = slot;
    }
    return slot;
  }

  private builderCredit(o: Order, counterparty: Address, f: Fill, now: number): void {
    const b = o.builder!;
    const builderAcct = this.userAccount(b.b, now);
    builderAcct.cash += f.builderFee;
    builderAcct.builderRewards += f.builderFee;
    const day = utcDay(now);
    let byDay = this.builderRows.get(builderAcct.addr);
    if (!byDay) {
      byDay = new Map();
      this.builderRows.set(builderAcct.addr, byDay);
    }
    let rows = byDay.get(day);
    if (!rows) {
      rows = [];
      byDay.set(day, rows);
    }
    rows.push({
      time: `${new Date(now).toISOString().slice(0, 19)}Z`,
      user: o.user.addr,
      coin: o.m.coin,
      side: o.isBuy ? "Bid" : "Ask",
      px: fmtScaled(f.px, o.m.pxDec),
      sz: fmtScaled(f.sz, o.m.szDec),
      crossed: f.crossed,
      special_trade_type: "Na",
      tif: o.tif,
      is_trigger: false,
      counterparty,
      closed_pnl: fmtScaled(f.closedPnl, 6),
      twap_id: "0",
      builder_fee: fmtScaled(f.builderFee, 6),
    });
  }

  /**
   * Apply one side of a trade to an account: position, entry, realized PnL, isolated margin, fees.
   * Returns the fill as the user will see it.
   */
  settle(
    a: Account,
    m: Market,
    isBuy: boolean,
    px: number,
    q: number,
    feeRate: number,
    builder: { b: Address; f: number } | null,
    now: number,
    crossed: boolean,
    oid: number,
    cloid: `0x${string}` | null,
    tid: number,
    hashSeq: number,
  ): Fill {
    let pos = a.positions.get(m.idx);
    const pool = this.pool(a, m.dexIndex);
    const start = pos ? pos.szi : 0;
    let closedPnl = 0;
    let openQ = q;
    if (pos && start !== 0 && start > 0 !== isBuy) {
      const absStart = start > 0 ? start : -start;
      const closeQ = Math.min(q, absStart);
      const cost = closeQ === absStart ? pos.entryNtl : mulDiv(pos.entryNtl, closeQ, absStart, "round");
      closedPnl = start > 0 ? px * closeQ - cost : cost - px * closeQ;
      pos.entryNtl -= cost;
      if (pos.isolated) {
        const rel = isolatedMarginReleased(pos.isoMargin, closeQ, absStart);
        pos.isoMargin -= rel;
        pool.cash += rel;
      }
      pos.szi += start > 0 ? -closeQ : closeQ;
      openQ = q - closeQ;
      pool.cash += closedPnl;
      if (start > 0) m.openInterest -= closeQ;
    }
    if (openQ > 0) {
      if (!pos || pos.szi === 0) {
        const s = this.levSetting(a, m);
        pos = {
          szi: 0,
          entryNtl: 0,
          isolated: !s.cross,
          lev: s.lev,
          isoMargin: 0,
          fundOpen: 0,
          fundChange: 0,
        };
        a.positions.set(m.idx, pos);
      }
      pos.szi += isBuy ? openQ : -openQ;
      pos.entryNtl += px * openQ;
      if (pos.isolated) {
        const margin = isolatedOpenMargin(px, openQ, pos.lev);
        pos.isoMargin += margin;
        pool.cash -= margin;
      }
      if (isBuy) m.openInterest += openQ;
    }
    if (pos) {
      pos.fundChange = 0;
      if (pos.szi === 0) {
        a.positions.delete(m.idx);
        if (a.positionTpsl > 0) this.closedPositions.push([a, m]);
      }
    }
    const ntl = px * q;
    const volumeBefore = a.volume;
    // A settlement is no trade: it counts toward no volume (fee tiers, rate limits).
    if (!this.settling) a.volume += ntl;
    const referral = feeWithReferral(ntl, feeRate, a.referredBy !== null, volumeBefore, builder !== null);
    const exFee = referral.fee;
    if (referral.rewarded) {
      a.referredBy!.rewardedFees += exFee;
      a.referredBy!.feesToReferrer += referral.reward;
    }
    const builderFee = builder ? mulDiv(ntl, builder.f, 100_000, "round") : 0;
    pool.cash -= exFee + builderFee;
    this.feesCollected += exFee;
    const f: Fill = {
      m,
      px,
      sz: q,
      isBuy,
      time: now,
      startPos: start,
      dir: this.settling ? "Settlement" : direction(start, isBuy, q),
      closedPnl,
      fee: exFee + builderFee,
      builderFee,
      oid,
      tid,
      crossed,
      hashSeq,
      cloid,
    };
    if (this.liquidating) f.liquidation = this.liquidating;
    this.pushFill(a, f);
    return f;
  }

  pushFill(a: Account, f: Fill): void {
    a.fills.push(f);
    if (a.fills.length > 2 * MAX_FILLS) a.fills.splice(0, a.fills.length - MAX_FILLS);
    if (this.observedUser(a.addr))
      this.emit({ kind: "userFills", user: a.addr, fills: [renderFill(this.seed, f)] });
  }

  /** Parse a "0.01%" approval into tenths of a basis point (10). */
  static feeRateToTenthsBp(rate: string): number | null {
    const m = /^(\d+(?:\.\d+)?)%$/.exec(rate);
    if (!m) return null;
    const p = parseScaled(m[1], 3);
    return p ? p.scaled : null;
  }
}

/** Lots of the position the given side may still reduce (0 when flat or same-side). */
function reducible(a: Account, m: Market, isBuy: boolean): number {
  const p = a.positions.get(m.idx);
  if (!p || p.szi === 0) return 0;
  if (isBuy) return p.szi < 0 ? -p.szi : 0;
  return Math.max(p.szi, 0);
}

function direction(start: number, isBuy: boolean, q: number): string {
  if (start === 0) return isBuy ? "Open Long" : "Open Short";
  if (start > 0) return isBuy ? "Open Long" : q > start ? "Long > Short" : "Close Long";
  return isBuy ? (q > -start ? "Short > Long" : "Close Short") : "Open Short";
}

function avgPx(ntl: number, sz: number, pxDec: number): string {
  // ntl / sz is the price at scale 10^pxDec; render with up to 6 extra digits, trimmed.
  const scaled = mulDiv(ntl, 1_000_000, sz, "round");
  return fmtScaled(scaled, pxDec + 6);
}

export function utcDayNumber(t: number): number {
  return Math.floor(t / 86_400_000);
}

function utcDay(t: number): string {
  return new Date(t).toISOString().slice(0, 10).replaceAll("-", "");
}

function median3(a: number, b: number, c: number): number {
  return Math.max(Math.min(a, b), Math.min(Math.max(a, b), c));
}

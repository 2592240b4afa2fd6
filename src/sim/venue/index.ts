/**
 * The sim world's exchange core ("venue"): order books with price-time priority, cross and
 * isolated margin, maker/taker and builder fees, hourly funding from the premium, liquidation,
 * candles, HIP-3 dexes — answering Hyperliquid's /info and /exchange shapes.
 *
 * For the transport (server) engineer:
 * - `createVenue({ seed, clock, startingBalance?, markets? })` → `SimVenue`. `clock()` is read for
 *   every timestamp; nothing inside reads Date.now or Math.random, so the same seed, clock values and
 *   action sequence give identical fills and state.
 * - `info(body)` answers a POST /info body (throws `VenueError` for a bad or unknown request → 400 /
 *   `{error}`). `exchange(action, masterUser, nonce)` applies an authenticated action and returns the
 *   exchange's `{status:"ok"|"err", response}`; map an agent signer first with `masterOf(agent)`.
 * - `subscribe(listener, interest?)` receives `VenueEvent`s after each action/advance completes
 *   (l2Book and allMids say "changed": re-read `info({type:"l2Book", coin})` /
 *   `info({type:"allMids", dex})`). Account events of users, and trades and candles of coins, that no
 *   subscriber's `interest` wants are not rendered at all.
 * - Driver/admin: `deposit(user, "1000")`, `withdraw(user, "10")` (both ledger updates),
 *   `setOraclePrice(coin, px)` (the market model moves prices here), `advance(nowMs)` (call it
 *   regularly — e.g. every sim second: 5 s premium samples, funding at each UTC hour, liquidations,
 *   candle roll-over), `builderFills(builder, "YYYYMMDD")` (rows of the official per-builder fill
 *   file, for CSV.lz4), `markets()` (dex, coin, asset id, szDecimals, maxLeverage, onlyIsolated).
 * - New addresses receive `startingBalance` USDC (recorded as a deposit) the first time they are
 *   seen. House market makers simply call `exchange()` with their own addresses.
 * - Fees: main dex taker 0.045%, maker 0.015%; HIP-3 dexes twice that. Builder fees (`builder.f`,
 *   tenths of a bp, ≤ 0.1% and ≤ the user's approval) are charged to the user and credited to the
 *   builder's account. Orders must be worth ≥ $10 (reduce-only exempt). Trigger (tp/sl) orders wait
 *   for the mark price, then become market (Ioc, 10% slippage, filled no better than the mark) or
 *   limit orders under the same oid; groupings `positionTpsl` and `normalTpsl` as on the exchange.
 * - Liquidation (checked in `advance`, liquidation.ts): when equity < maintenance (tiered: margin.ts)
 *   reduce-only market orders go into the book (≤ 2% through the mark, never better than it); a
 *   position over $100k sends 20 % at a time (then 30 s of full-size liquidation); below 2/3 of
 *   maintenance the backstop account `LIQUIDATOR` takes over the rest at the mark and absorbs losses
 *   beyond an isolated position's margin or a cross account's equity. Fills carry `liquidation`.
 * - One USDC balance per user. Cross positions (main dex) use it directly; isolated positions (all
 *   HIP-3, or main dex after `updateLeverage isCross:false`) move their margin out of it, so
 *   `clearinghouseState {dex:"yex"}` shows those positions and their margin, and the accountValues
 *   of all dexes add up to the user's equity.
 * - builderFills rows: `time` is ISO UTC to the second ("2026-11-22T01:02:03Z"), `side` Bid/Ask,
 *   booleans as booleans, decimals as strings, `twap_id` "0" and `special_trade_type` "Na".
 * - Mark price = median(oracle, best bid, best ask) (the oracle when a side is empty). Funding is
 *   settled at each UTC hour from 5-second premium samples (formulas in clockwork.ts).
 * - Also served: modify / batchModify / scheduleCancel (refused under $1M of volume unless
 *   `scheduleCancelAnyVolume`) / usdClassTransfer (perp ↔ spot USDC) / registerReferrer and
 *   setReferrer (referrals.ts) actions (sendAsset to oneself and noop are accepted no-ops: one
 *   collateral pool serves every perp dex), and info recentTrades, activeAssetData, userFees,
 *   referral (referrer, own code, builderRewards), extraAgents, userRole,
 *   userRateLimit, spotMetaAndAssetCtxs.
 */
import { D } from "../../core/decimal.ts";
import {
  type Address,
  type ExchangeAction,
  type ExchangeResponse,
  type Venue,
  VenueError,
} from "../venue.ts";
import { applyAction } from "./actions.ts";
import { Clockwork } from "./clockwork.ts";
import { LIQUIDATOR, VenueCore } from "./core.ts";
import { delistMarket } from "./delisting.ts";
import { fmtScaled, parseScaled } from "./fixed.ts";
import { loadMarketPast, type MarketPast } from "./history.ts";
import { answerInfo, type InfoRequest } from "./info.ts";
import { DEFAULT_MARKETS, type MarketSpec } from "./markets.ts";
import type { MarketLimits } from "./order-rules.ts";
import { restoreVenue, snapshotVenue, type VenueSnapshot } from "./snapshot.ts";
import type { BuilderFillRow } from "./types.ts";

export { DEFAULT_MARKETS, type MarketSpec } from "./markets.ts";
export { LIQUIDATOR };

export interface VenueOptions {
  seed?: number;
  clock: () => number;
  /** USDC credited to every new address (decimal string); default "0". */
  startingBalance?: string;
  markets?: MarketSpec[];
  /** Open-interest cap and upper margin tier per coin (order-rules.ts has the defaults). */
  limits?: Record<string, MarketLimits>;
  /**
   * Accept `scheduleCancel` from accounts under the exchange's $1M of traded volume (tests, demos).
   * Default: env `HL_SIM_SCHEDULE_CANCEL_ANY_VOLUME=1`, else off — the exchange's gate applies.
   */
  scheduleCancelAnyVolume?: boolean;
}

interface MarketInfo {
  dex: string;
  coin: string;
  asset: number;
  szDecimals: number;
  maxLeverage: number;
  onlyIsolated: boolean;
}

/** What a delisting did: the settlement price (decimal string) and how much it closed. */
interface DelistingReport {
  coin: string;
  settlementPx: string;
  positionsSettled: number;
  ordersCancelled: number;
}

export interface SimVenue extends Venue {
  deposit(user: Address, amount: string): void;
  withdraw(user: Address, amount: string): void;
  setOraclePrice(coin: string, px: string | number): void;
  advance(nowMs: number): void;
  builderFills(builder: Address, dayUtc: string): BuilderFillRow[];
  markets(): MarketInfo[];
  /** The master account an approved agent signs for, or undefined. */
  masterOf(agent: Address): Address | undefined;
  /** Exchange fees collected so far (builder fees excluded), decimal string. */
  feesCollected(): string;
  /** Load a market's past (candles, funding, volume, trades), ending now, before trading starts. */
  loadPast(coin: string, past: MarketPast, parties: { buyer: Address; seller: Address }): void;
  /**
   * A past ending now that is made only when the market is first looked at (its candles, funding,
   * trades or asset context) or traded: a world need not make every market's month at start.
   */
  deferPast(coin: string, make: () => MarketPast, parties: { buyer: Address; seller: Address }): void;
  /**
   * Show one recorded, closed 1-minute candle (decimal prices, base volume) as the market's: from the
   * first one on, the market's candles are the recording's and trades here no longer print into them.
   */
  replayCandle(
    coin: string,
    candle: { t: number; o: number; h: number; l: number; c: number; v: number; n: number },
  ): void;
  /** Open interest the rest of the market holds in `coin`, in coins (shown in the asset context). */
  setBackgroundOpenInterest(coin: string, sz: number): void;
  /**
   * The exchange delists `coin` while it trades (delisting.ts): its open orders are cancelled
   * (`delistedCanceled`), every position is settled at the oracle's average over the last hour with a
   * "Settlement" fill, `meta` flags it `isDelisted` and every later order on it is refused with
   * `Trading is halted.`. Kept in a saved world. Throws VenueError for an unknown or delisted coin.
   */
  delist(coin: string): DelistingReport;
  /** Coins delisted while the venue ran (or in the world it was restored from). */
  delisted(): string[];
  /** Size (coins) still resting of each of `user`'s open orders `oids`; 0 once one has filled or gone. */
  restingSizes(user: Address, oids: readonly (number | undefined)[]): number[];
  /** Account state as JSON, without the open orders of `skipOrdersOf` (see snapshot.ts). */
  snapshot(skipOrdersOf: readonly string[]): VenueSnapshot;
  /** Load account state saved by `snapshot` into this fresh venue. */
  restore(snap: VenueSnapshot): void;
}

export function createVenue(opts: VenueOptions): SimVenue {
  const start = opts.startingBalance === undefined ? null : parseScaled(opts.startingBalance, 6);
  if (opts.startingBalance !== undefined && !start)
    throw new Error(`bad startingBalance ${opts.startingBalance}`);
  const core = new VenueCore({
    seed: opts.seed ?? 0,
    startingBalance: start ? start.scaled : 0,
    markets: opts.markets ?? DEFAULT_MARKETS,
    ...(opts.limits ? { limits: opts.limits } : {}),
    scheduleCancelAnyVolume:
      opts.scheduleCancelAnyVolume ?? process.env.HL_SIM_SCHEDULE_CANCEL_ANY_VOLUME === "1",
  });
  const clock = new Clockwork(core, opts.clock());
  const usdc = (amount: string): number => {
    const p = parseScaled(amount, 6);
    if (!p || p.scaled === 0) throw new VenueError(`Invalid amount: ${amount}`);
    return p.scaled;
  };

  return {
    now: () => opts.clock(),
    info(req: InfoRequest): unknown {
      const out = answerInfo(core, clock, opts.clock(), req);
      // A first look at an address opens its account (starting-balance deposit): publish that now.
      core.flush();
      return out;
    },
    exchange(action: ExchangeAction, user: Address, nonce: number): ExchangeResponse {
      const now = opts.clock();
      const r = applyAction(core, action, user, nonce, now);
      core.checkTriggers(now);
      core.flush();
      return r;
    },
    subscribe(listener, interest) {
      const entry = { fn: listener, interest };
      core.listeners.push(entry);
      return () => {
        const i = core.listeners.indexOf(entry);
        if (i >= 0) core.listeners.splice(i, 1);
      };
    },
    deposit(user, amount) {
      const now = opts.clock();
      core.credit(core.userAccount(user, now), usdc(amount), now, { type: "deposit" });
      core.flush();
    },
    withdraw(user, amount) {
      const now = opts.clock();
      const a = core.userAccount(user, now);
      const v = usdc(amount);
      if (v > core.withdrawable(a)) throw new VenueError("Insufficient balance for withdrawal.");
      a.cash -= v;
      core.ledger(a, now, { type: "withdraw", usdc: fmtScaled(v, 6), nonce: now, fee: "0" });
      core.flush();
    },
    setOraclePrice(coin, px) {
      const m = core.byCoin.get(coin);
      if (!m) throw new VenueError(`Unknown coin: ${coin}`);
      const v = new D(px);
      if (!v.isFinite() || v.lte(0)) throw new VenueError(`Invalid oracle price: ${px}`);
      const scaled = v
        .mul(10 ** m.pxDec)
        .toDecimalPlaces(0)
        .toNumber();
      m.oracle = Math.max(1, scaled);
      core.emit({ kind: "allMids", dex: m.dex.name });
      core.checkTriggers(opts.clock());
      core.flush();
    },
    advance(nowMs) {
      clock.advance(nowMs);
      core.checkTriggers(nowMs);
      core.flush();
    },
    builderFills(builder, dayUtc) {
      return [...(core.builderRows.get(builder.toLowerCase())?.get(dayUtc) ?? [])];
    },
    markets() {
      return core.markets.map((m) => ({
        dex: m.dex.name,
        coin: m.coin,
        asset: m.asset,
        szDecimals: m.szDec,
        maxLeverage: m.spec.maxLeverage,
        onlyIsolated: m.spec.onlyIsolated === true,
      }));
    },
    masterOf(agent) {
      return core.agents.masterOf(agent.toLowerCase() as Address, opts.clock());
    },
    feesCollected() {
      return fmtScaled(core.feesCollected, 6);
    },
    loadPast(coin, past, parties) {
      const m = core.byCoin.get(coin);
      if (!m) throw new VenueError(`Unknown coin: ${coin}`);
      loadMarketPast(core, m, past, opts.clock(), parties);
    },
    deferPast(coin, make, parties) {
      const m = core.byCoin.get(coin);
      if (!m) throw new VenueError(`Unknown coin: ${coin}`);
      const endMs = opts.clock();
      core.deferPast(m, () => loadMarketPast(core, m, make(), endMs, parties));
    },
    snapshot(skipOrdersOf) {
      return snapshotVenue(core, skipOrdersOf);
    },
    restore(snap) {
      restoreVenue(core, snap);
    },
    replayCandle(coin, k) {
      const m = core.byCoin.get(coin);
      if (!m) throw new VenueError(`Unknown coin: ${coin}`);
      const px = (x: number) => Math.max(1, Math.round(x * 10 ** m.pxDec));
      core.replayCandle(m, {
        t: k.t,
        o: px(k.o),
        h: px(k.h),
        l: px(k.l),
        c: px(k.c),
        v: Math.round(k.v * 10 ** m.szDec),
        n: k.n,
      });
      core.flush();
    },
    restingSizes(user, oids) {
      const open = core.accounts.get(user.toLowerCase())?.open;
      return oids.map((oid) => {
        const o = oid === undefined ? undefined : open?.get(oid);
        return o ? o.sz / 10 ** o.m.szDec : 0;
      });
    },
    setBackgroundOpenInterest(coin, sz) {
      const m = core.byCoin.get(coin);
      if (!m) throw new VenueError(`Unknown coin: ${coin}`);
      m.backgroundOi = Math.max(0, Math.round(sz * 10 ** m.szDec));
    },
    delisted() {
      return [...core.delistings.keys()].map((m) => m.coin);
    },
    delist(coin) {
      const m = core.byCoin.get(coin);
      if (!m) throw new VenueError(`Unknown coin: ${coin}`);
      if (m.spec.isDelisted) throw new VenueError(`${coin} is already delisted`);
      const now = opts.clock();
      const r = delistMarket(core, m, now);
      core.checkTriggers(now);
      core.flush();
      return {
        coin,
        settlementPx: fmtScaled(r.px, m.pxDec),
        positionsSettled: r.positionsSettled,
        ordersCancelled: r.ordersCancelled,
      };
    },
  };
}

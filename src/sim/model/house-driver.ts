import type { Address, ExchangeAction, ExchangeResponse } from "../venue.ts";
import { HOUSE_LEVELS, type HouseQuote, houseLadder } from "./house-quotes.ts";
import { floorSz, roundPx, tickExponent } from "./price-grid.ts";
import { holeAfter } from "./resiliency.ts";
import type { WorldModel } from "./world-model.ts";

/** The part of the venue the house needs: place actions without signatures, and move oracles. */
interface HouseVenue {
  exchange(action: ExchangeAction, user: Address, nonce: number): ExchangeResponse;
  setOraclePrice(coin: string, px: string): void;
  deposit(user: Address, amount: string): void;
  setBackgroundOpenInterest(coin: string, sz: number): void;
  /** Size (coins) still resting of each of `user`'s open orders `oids`; 0 once one has filled or gone. */
  restingSizes(user: Address, oids: readonly (number | undefined)[]): number[];
}

export interface HouseMarket {
  coin: string;
  asset: number;
  szDecimals: number;
  maxLeverage: number;
  onlyIsolated: boolean;
  impactNotionalUsd: number;
  premiumStyle: "main" | "hip3";
}

/** One merged background taker order: a market's buys or sells since the last send. */
export interface TakerOrder {
  coin: string;
  isBuy: boolean;
  notionalUsd: number;
}

/** The house accounts: one market maker per dex family and one taker. Fixed, recognisable addresses. */
export const HOUSE_MAKER: Address = "0xba5e000000000000000000000000000000000001";
const HOUSE_MAKER_HIP3: Address = "0xba5e000000000000000000000000000000000002";
export const HOUSE_TAKER: Address = "0xba5e000000000000000000000000000000000003";
/**
 * An account may hold at most 1000 open orders (the exchange's base cap), so the main dex's books are
 * shared by several makers, each quoting a block of markets: …01 the first, then …0100, …0101, ….
 */
const EXTRA_MAIN_MAKERS = 15;
const HOUSE_MAIN_MAKERS: readonly Address[] = [
  HOUSE_MAKER,
  ...Array.from(
    { length: EXTRA_MAIN_MAKERS },
    (_, k) => `0xba5e${(0x100 + k).toString(16).padStart(36, "0")}` as Address,
  ),
];
export const HOUSE_ADDRESSES: readonly Address[] = [...HOUSE_MAIN_MAKERS, HOUSE_MAKER_HIP3, HOUSE_TAKER];
/** Markets one maker quotes: both sides of every level of each stay under the 1000 open orders. */
const MARKETS_PER_MAKER = Math.floor(1000 / (2 * HOUSE_LEVELS)) - 1;
/** Most notional one merged taker order may take, in first-level notionals (about three levels deep). */
const MAX_TAKEN_LEVELS = 3;
/** Enough for years of the background flow's fees at Hyperliquid's volumes. */
const HOUSE_BALANCE = "2000000000";

/** One level of a house ladder: what the full ladder holds there, and what is missing of it. */
interface HouseLevel {
  isBuy: boolean;
  px: string;
  /** Size of the full level (coins). */
  target: number;
  /** Size taken from the level by trades that has not come back yet (coins). */
  hole: number;
  /** Size resting there when the house last looked (coins). */
  resting: number;
  oid: number | undefined;
}

interface RestingLadder {
  levels: HouseLevel[];
  /** Oracle, premium and model time the ladder was built for (`at`: also its last refill). */
  px: number;
  /** The recorded book it posts, when the model replays one: posted as it is, never refilled. */
  recorded?: readonly HouseQuote[];
  premium: number;
  at: number;
  /** Some level has a hole (there is something to refill). */
  holes: boolean;
}

/**
 * A ladder is moved when the price moves this share of the half-spread, or half a tick, whichever is
 * more: its touch never ends up on the wrong side of the price, and thin markets are not rebuilt at
 * every step (each rebuild is 40 cancels and 40 orders).
 */
const REQUOTE_SHARE_OF_HALF_SPREAD = 0.8;
/**
 * A level is topped up once this share of it has come back (or at least one lot): each top-up costs a
 * cancel and an order, so the refill goes in steps rather than a trickle.
 */
const REFILL_STEP_SHARE = 0.05;
/** Smallest notional the house leaves resting: the exchange's $10 minimum order value. */
const MIN_LEVEL_USD = 10;

/**
 * Keeps the venue in step with the model: oracle prices, the house makers' ladders (cancel and
 * replace when the wanted ladder changes) and the model's taker flow — all placed straight into the
 * venue as authenticated house actions, with no signatures.
 */
export class HouseDriver {
  private readonly resting = new Map<string, RestingLadder>();
  private readonly lastOracle = new Map<string, string>();
  private readonly quoting: boolean;
  /** The house accounts already hold their balance (a restored world). */
  private readonly funded: boolean;
  private readonly byCoin: Map<string, HouseMarket>;
  private nonce: number;

  constructor(
    private readonly venue: HouseVenue,
    private readonly model: WorldModel,
    private readonly markets: readonly HouseMarket[],
    opts: { quoting: boolean; startMs: number; funded?: boolean },
  ) {
    this.nonce = opts.startMs;
    this.quoting = opts.quoting;
    this.funded = opts.funded ?? false;
    this.byCoin = new Map(markets.map((m) => [m.coin, m]));
    let main = 0;
    for (const m of markets) {
      if (m.premiumStyle !== "main") this.makers.set(m.coin, HOUSE_MAKER_HIP3);
      else {
        const block = Math.floor(main++ / MARKETS_PER_MAKER);
        const maker = HOUSE_MAIN_MAKERS[block];
        if (!maker) throw new Error(`more main-dex markets than the house makers can quote (${main})`);
        this.makers.set(m.coin, maker);
      }
    }
  }

  /** The maker quoting each market. */
  private readonly makers = new Map<string, Address>();

  /** Fund the house and set leverage once; call before the first sync. */
  start(): void {
    if (this.quoting) {
      if (!this.funded) for (const user of HOUSE_ADDRESSES) this.venue.deposit(user, HOUSE_BALANCE);
      // The accounts that trade HIP-3 dexes margin them from their main balance, as a live account
      // does once it turns dex abstraction on (a new account keeps each dex's USDC apart).
      for (const user of [HOUSE_MAKER_HIP3, HOUSE_TAKER])
        this.send(user, { type: "userDexAbstraction", user, enabled: true });
      for (const m of this.markets) {
        for (const user of [this.makerFor(m), HOUSE_TAKER]) {
          this.send(user, {
            type: "updateLeverage",
            asset: m.asset,
            isCross: !m.onlyIsolated,
            leverage: Math.min(m.maxLeverage, 5),
          });
        }
      }
    }
    this.sync();
  }

  /**
   * Stop driving a market the exchange delisted: no oracle, quotes or taker flow there from now on
   * (the venue cancelled its resting orders when it settled the market).
   */
  retire(coin: string): void {
    this.retired.add(coin);
    this.resting.delete(coin);
  }

  private readonly retired = new Set<string>();

  get marketCount(): number {
    return this.markets.length;
  }

  /** Push the model's current state into the venue. */
  sync(): void {
    this.syncMarkets(0, this.markets.length);
    this.sendTakers();
  }

  /** Oracles and ladders of markets [from, to) only: a real-time caller spreads a sync over several turns. */
  syncMarkets(from: number, to: number): void {
    for (let i = from; i < Math.min(to, this.markets.length); i++) {
      const m = this.markets[i]!;
      if (this.retired.has(m.coin)) continue;
      const state = this.model.price(m.coin);
      if (!state) continue;
      const oracle = roundPx(state.px, m.szDecimals, "nearest");
      if (this.lastOracle.get(m.coin) !== oracle) {
        this.venue.setOraclePrice(m.coin, oracle);
        this.lastOracle.set(m.coin, oracle);
      }
      this.venue.setBackgroundOpenInterest(m.coin, state.oi);
      if (!this.quoting) continue;
      const recorded = this.model.recordedBook?.(m.coin);
      if (recorded) {
        if (this.resting.get(m.coin)?.recorded !== recorded)
          this.requote(m, recorded, state.px, state.premium);
        continue;
      }
      const params = this.model.params(m.coin)!;
      const prev = this.resting.get(m.coin);
      const maker = this.makerFor(m);
      if (prev && !prev.recorded) this.measureHoles(maker, prev, params.refillHalfLifeMs);
      const tickShare = 10 ** tickExponent(state.px, m.szDecimals) / state.px;
      const tolerance = Math.max((REQUOTE_SHARE_OF_HALF_SPREAD * params.halfSpreadBps) / 1e4, tickShare / 2);
      if (
        prev &&
        !prev.recorded &&
        Math.abs(state.px / prev.px - 1) < tolerance &&
        Math.abs(state.premium - prev.premium) < tolerance
      ) {
        this.refill(m, prev);
        continue;
      }
      const ladder = houseLadder({
        oraclePx: Number(oracle),
        premium: state.premium,
        szDecimals: m.szDecimals,
        params,
        impactNotionalUsd: m.impactNotionalUsd,
        premiumStyle: m.premiumStyle,
      });
      // The ladder moves with the price; what trades took from it has not come back for being moved.
      this.requote(m, ladder, state.px, state.premium, prev && !prev.recorded ? holeShares(prev) : undefined);
    }
  }

  /**
   * Bring each level's hole up to date: what trades took since the last look is added, the rest of the
   * hole shrinks with the market's refill half-life (see resiliency.ts).
   */
  private measureHoles(maker: Address, ladder: RestingLadder, halfLifeMs: number): void {
    const dt = this.model.time - ladder.at;
    const now = this.venue.restingSizes(
      maker,
      ladder.levels.map((l) => l.oid),
    );
    let open = false;
    ladder.levels.forEach((l, k) => {
      const size = now[k]!;
      if (l.hole > 0 || size < l.resting)
        l.hole = holeAfter({ target: l.target, hole: l.hole, before: l.resting, now: size }, dt, halfLifeMs);
      // Something to put back: a hole, or a level left out because it was too small to place.
      open ||= l.hole > 0 || size < l.target - l.hole - 1e-12;
      l.resting = size;
      if (size <= 0) l.oid = undefined;
    });
    ladder.at = this.model.time;
    ladder.holes = open;
  }

  /** Top up the levels whose hole has shrunk by a refill step since they were last placed. */
  private refill(m: HouseMarket, ladder: RestingLadder): void {
    if (!ladder.holes) return;
    const sizes = new Map<HouseLevel, number>();
    for (const l of ladder.levels) {
      const want = floorLots(l.target - l.hole, m.szDecimals);
      const step = Math.max(REFILL_STEP_SHARE * l.target, 10 ** -m.szDecimals);
      if (want - l.resting >= step - 1e-12 && want * Number(l.px) >= MIN_LEVEL_USD) sizes.set(l, want);
    }
    this.replaceLevels(m, sizes);
  }

  /**
   * Cancel the given levels' orders and place each again at its new size, in one cancel and one order.
   * `keepResting`: leave each level's last look as it was (what trades took before stays to be counted).
   */
  private replaceLevels(m: HouseMarket, sizes: ReadonlyMap<HouseLevel, number>, keepResting = false): void {
    if (sizes.size === 0) return;
    const maker = this.makerFor(m);
    const cancels = [...sizes.keys()]
      .filter((l) => l.oid !== undefined)
      .map((l) => ({ a: m.asset, o: l.oid! }));
    if (cancels.length > 0) this.send(maker, { type: "cancel", cancels });
    const levels = [...sizes.keys()];
    const res = this.send(maker, {
      type: "order",
      orders: levels.map((l) => ({
        a: m.asset,
        b: l.isBuy,
        p: l.px,
        s: floorSz(sizes.get(l)!, m.szDecimals),
        r: false,
        t: { limit: { tif: "Gtc" as const } },
      })),
      grouping: "na",
    });
    const oids = statusOids(res, levels.length);
    const placed = keepResting ? [] : this.venue.restingSizes(maker, oids);
    levels.forEach((l, k) => {
      l.oid = oids[k];
      if (!keepResting) l.resting = placed[k]!;
    });
  }

  /**
   * Send the taker flow the model decided since the last call: per market at most one buy and one
   * sell, each the sum of that side's intents, so a long advance keeps the volume without flooding
   * the book with orders.
   */
  sendTakers(): void {
    for (const order of this.takerOrders()) this.sendTaker(order);
  }

  /**
   * The taker orders `sendTakers` would send now, in its order, each to be sent with `sendTaker`: a
   * real-time caller spreads them over several turns.
   */
  takerOrders(): TakerOrder[] {
    const takers = this.model.drainTakers();
    if (!this.quoting) return [];
    const sums = new Map<string, { buy: number; sell: number }>();
    for (const t of takers) {
      let s = sums.get(t.coin);
      if (!s) {
        s = { buy: 0, sell: 0 };
        sums.set(t.coin, s);
      }
      if (t.isBuy) s.buy += t.notionalUsd;
      else s.sell += t.notionalUsd;
    }
    const orders: TakerOrder[] = [];
    for (const [coin, s] of sums) {
      if (this.retired.has(coin)) continue;
      // A long skip ahead gathers more flow than the ladder holds: what the book cannot take is dropped.
      const most = (this.model.params(coin)?.levelNotionalUsd ?? 0) * MAX_TAKEN_LEVELS;
      if (s.buy > 0) orders.push({ coin, isBuy: true, notionalUsd: Math.min(s.buy, most) });
      if (s.sell > 0) orders.push({ coin, isBuy: false, notionalUsd: Math.min(s.sell, most) });
    }
    return orders;
  }

  /**
   * Send one taker order (an IOC against the book, priced at the model's price). The background flow
   * stands for the market's many small trades, which the exchange's makers answer within a block:
   * what it takes from the house is put back at once, so only other traders' orders (a sweep, a
   * liquidation) leave a hole that refills at the market's half-life.
   */
  sendTaker(order: TakerOrder): void {
    const m = this.byCoin.get(order.coin);
    const ladder = this.resting.get(order.coin);
    if (!m || !ladder || ladder.recorded) {
      this.take(order.coin, order.isBuy, order.notionalUsd);
      return;
    }
    const maker = this.makerFor(m);
    const oids = ladder.levels.map((l) => l.oid);
    const before = this.venue.restingSizes(maker, oids);
    this.take(order.coin, order.isBuy, order.notionalUsd);
    const after = this.venue.restingSizes(maker, oids);
    const sizes = new Map<HouseLevel, number>();
    ladder.levels.forEach((l, k) => {
      if (after[k]! < before[k]!) sizes.set(l, before[k]!);
    });
    this.replaceLevels(m, sizes, true);
  }

  private makerFor(m: HouseMarket): Address {
    return this.makers.get(m.coin) ?? HOUSE_MAKER;
  }

  /**
   * Replace a market's ladder with `quotes`; `holes` (share of each level still missing, bids then
   * asks by level) leaves that part of each new level out until it refills.
   */
  private requote(
    m: HouseMarket,
    quotes: readonly HouseQuote[],
    px: number,
    premium: number,
    holes?: { bids: number[]; asks: number[] },
  ): void {
    this.cancelResting(m);
    const recorded = this.model.recordedBook?.(m.coin) === quotes ? { recorded: quotes } : {};
    const levels: HouseLevel[] = [];
    let bid = 0;
    let ask = 0;
    for (const q of quotes) {
      const target = Number(q.sz);
      const share = (q.isBuy ? holes?.bids[bid++] : holes?.asks[ask++]) ?? 0;
      levels.push({ isBuy: q.isBuy, px: q.px, target, hole: target * share, resting: 0, oid: undefined });
    }
    const ladder: RestingLadder = {
      levels,
      px,
      premium,
      at: this.model.time,
      holes: true,
      ...recorded,
    };
    this.resting.set(m.coin, ladder);
    const sizes = new Map<HouseLevel, number>();
    for (const l of levels) {
      const want = floorLots(l.target - l.hole, m.szDecimals);
      if (want > 0 && (recorded.recorded || want * Number(l.px) >= MIN_LEVEL_USD)) sizes.set(l, want);
    }
    this.replaceLevels(m, sizes);
  }

  private cancelResting(m: HouseMarket): void {
    const prev = this.resting.get(m.coin);
    if (!prev) return;
    const cancels = prev.levels.filter((l) => l.oid !== undefined).map((l) => ({ a: m.asset, o: l.oid! }));
    if (cancels.length > 0) this.send(this.makerFor(m), { type: "cancel", cancels });
    this.resting.delete(m.coin);
  }

  private take(coin: string, isBuy: boolean, notionalUsd: number): void {
    const m = this.byCoin.get(coin);
    const px = this.model.price(coin)?.px;
    if (!m || !px) return;
    const limit = roundPx(px * (isBuy ? 1.02 : 0.98), m.szDecimals, isBuy ? "up" : "down");
    const sz = floorSz(notionalUsd / px, m.szDecimals);
    if (Number(sz) <= 0) return;
    this.send(HOUSE_TAKER, {
      type: "order",
      orders: [{ a: m.asset, b: isBuy, p: limit, s: sz, r: false, t: { limit: { tif: "Ioc" } } }],
      grouping: "na",
    });
  }

  private send(user: Address, action: ExchangeAction): ExchangeResponse {
    this.nonce += 1;
    try {
      return this.venue.exchange(action, user, this.nonce);
    } catch (err) {
      return { status: "err", response: err instanceof Error ? err.message : String(err) };
    }
  }
}

/** `sz` rounded down to the market's lots, as a number. */
function floorLots(sz: number, szDecimals: number): number {
  const scale = 10 ** szDecimals;
  return Math.floor(sz * scale + Math.abs(sz * scale) * 1e-12) / scale;
}

/** Share of each level of a ladder still missing, bids and asks from the touch outwards. */
function holeShares(ladder: RestingLadder): { bids: number[]; asks: number[] } {
  const bids: number[] = [];
  const asks: number[] = [];
  for (const l of ladder.levels) (l.isBuy ? bids : asks).push(l.target > 0 ? l.hole / l.target : 0);
  return { bids, asks };
}

/** The resting oid of each of the `n` orders of an order response (undefined: filled at once, or refused). */
function statusOids(res: ExchangeResponse, n: number): (number | undefined)[] {
  const out: (number | undefined)[] = new Array(n).fill(undefined);
  if (res.status !== "ok") return out;
  const data = res.response.data as { statuses?: unknown[] } | undefined;
  (data?.statuses ?? []).forEach((s, k) => {
    if (k < n && typeof s === "object" && s !== null && "resting" in s) {
      const oid = (s as { resting: { oid: number } }).resting.oid;
      if (typeof oid === "number") out[k] = oid;
    }
  });
  return out;
}

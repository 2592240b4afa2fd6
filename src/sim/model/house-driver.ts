import type { Address, ExchangeAction, ExchangeResponse } from "../venue.ts";
import { HOUSE_LEVELS, type HouseQuote, houseLadder } from "./house-quotes.ts";
import { floorSz, roundPx } from "./price-grid.ts";
import type { WorldModel } from "./world-model.ts";

/** The part of the venue the house needs: place actions without signatures, and move oracles. */
export interface HouseVenue {
  exchange(action: ExchangeAction, user: Address, nonce: number): ExchangeResponse;
  setOraclePrice(coin: string, px: string): void;
  deposit(user: Address, amount: string): void;
  setBackgroundOpenInterest(coin: string, sz: number): void;
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
export const HOUSE_MAKER_HIP3: Address = "0xba5e000000000000000000000000000000000002";
export const HOUSE_TAKER: Address = "0xba5e000000000000000000000000000000000003";
/**
 * An account may hold at most 1000 open orders (the exchange's base cap), so the main dex's books are
 * shared by several makers, each quoting a block of markets: …01 the first, then …0100, …0101, ….
 */
const EXTRA_MAIN_MAKERS = 15;
export const HOUSE_MAIN_MAKERS: readonly Address[] = [
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

interface RestingLadder {
  oids: number[];
  /** Oracle, premium and model time the ladder was built for. */
  px: number;
  /** The recorded book it posts, when the model replays one. */
  recorded?: readonly HouseQuote[];
  premium: number;
  at: number;
}

/** A ladder is kept while the price stays within this share of the half-spread… */
const REQUOTE_SHARE_OF_HALF_SPREAD = 0.3;
/** …and is rebuilt at least this often (sim ms), refilling levels that takers consumed. */
const REQUOTE_EVERY_MS = 5_000;

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
      const tolerance = (REQUOTE_SHARE_OF_HALF_SPREAD * params.halfSpreadBps) / 1e4;
      if (
        prev &&
        // Markets refresh at staggered moments, so the house never rebuilds every book at once.
        this.model.time - prev.at < REQUOTE_EVERY_MS * (1 + i / this.markets.length) &&
        Math.abs(state.px / prev.px - 1) < tolerance &&
        Math.abs(state.premium - prev.premium) < tolerance
      ) {
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
      this.requote(m, ladder, state.px, state.premium);
    }
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
      // A long skip ahead gathers more flow than the ladder holds: what the book cannot take is dropped.
      const most = (this.model.params(coin)?.levelNotionalUsd ?? 0) * MAX_TAKEN_LEVELS;
      if (s.buy > 0) orders.push({ coin, isBuy: true, notionalUsd: Math.min(s.buy, most) });
      if (s.sell > 0) orders.push({ coin, isBuy: false, notionalUsd: Math.min(s.sell, most) });
    }
    return orders;
  }

  /** Send one taker order (an IOC against the book, priced at the model's price). */
  sendTaker(order: TakerOrder): void {
    this.take(order.coin, order.isBuy, order.notionalUsd);
  }

  private makerFor(m: HouseMarket): Address {
    return this.makers.get(m.coin) ?? HOUSE_MAKER;
  }

  private requote(m: HouseMarket, ladder: readonly HouseQuote[], px: number, premium: number): void {
    this.cancelResting(m);
    const recorded = this.model.recordedBook?.(m.coin) === ladder ? { recorded: ladder } : {};
    if (ladder.length === 0) {
      this.resting.set(m.coin, { oids: [], px, premium, at: this.model.time, ...recorded });
      return;
    }
    const res = this.send(this.makerFor(m), {
      type: "order",
      orders: ladder.map((q) => ({
        a: m.asset,
        b: q.isBuy,
        p: q.px,
        s: q.sz,
        r: false,
        t: { limit: { tif: "Gtc" } },
      })),
      grouping: "na",
    });
    this.resting.set(m.coin, { oids: restingOids(res), px, premium, at: this.model.time, ...recorded });
  }

  private cancelResting(m: HouseMarket): void {
    const prev = this.resting.get(m.coin);
    if (!prev || prev.oids.length === 0) return;
    this.send(this.makerFor(m), { type: "cancel", cancels: prev.oids.map((o) => ({ a: m.asset, o })) });
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

/** Oids of the orders of an order response that are resting (or partly filled and still resting). */
function restingOids(res: ExchangeResponse): number[] {
  if (res.status !== "ok") return [];
  const data = res.response.data as { statuses?: unknown[] } | undefined;
  const oids: number[] = [];
  for (const s of data?.statuses ?? []) {
    if (typeof s === "object" && s !== null && "resting" in s) {
      const oid = (s as { resting: { oid: number } }).resting.oid;
      if (typeof oid === "number") oids.push(oid);
    }
  }
  return oids;
}

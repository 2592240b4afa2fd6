import { type MarketParams, marketParams, takerFlow } from "./market-params.ts";
import { activity, initialPriceState, type PriceState, type Scenario, stepPrice } from "./price-process.ts";
import { createRng, deriveSeed, type Rng } from "./prng.ts";

/** What the model needs to know about a listed market. */
export interface ModelMarket {
  coin: string;
  szDecimals: number;
  startPx: number;
  impactNotionalUsd: number;
}

/** A market order the model's taker flow wants sent (sized in USD). */
export interface TakerIntent {
  coin: string;
  isBuy: boolean;
  notionalUsd: number;
}

interface MarketState {
  market: ModelMarket;
  params: MarketParams;
  rng: Rng;
  price: PriceState;
  flow: { perMinute: number; meanUsd: number };
  /** Net notional the background takers bought (USD): they lean against it so the house stays flat. */
  takenUsd: number;
}

/** Taker intents kept while nobody drains them (trimmed in batches, oldest first). */
const MAX_QUEUED_TAKERS = 5000;
/** Net taker notional, as a share of a day's volume, at which the flow leans hard the other way. */
const INVENTORY_SHARE = 0.01;

/**
 * The seeded market model on a fixed grid of sim time (one step per `stepMs`), so the path depends
 * only on the seed and the grid — never on how often the scheduler happens to wake up. Each market
 * draws from its own stream and BTC's shock from a shared one, so adding a market leaves the others'
 * paths unchanged.
 */
export class MarketModel {
  readonly stepMs: number;
  private readonly markets = new Map<string, MarketState>();
  private readonly btcRng: Rng;
  private readonly scenarios: Scenario[] = [];
  private readonly takers: TakerIntent[] = [];
  private t: number;

  constructor(
    markets: readonly ModelMarket[],
    opts: {
      seed: number;
      startMs: number;
      stepMs?: number;
      /** Where each coin's process starts (the end of its backfilled history); default a calm start at startPx. */
      initial?: ReadonlyMap<string, PriceState>;
    },
  ) {
    this.stepMs = opts.stepMs ?? 1000;
    this.t = opts.startMs;
    this.btcRng = createRng(deriveSeed(opts.seed, "btc-shock"));
    for (const m of markets) {
      const params = marketParams(m.coin, opts.seed);
      this.markets.set(m.coin, {
        market: m,
        params,
        rng: createRng(deriveSeed(opts.seed, `market:${m.coin}`)),
        price: opts.initial?.get(m.coin) ?? initialPriceState(m.startPx, params.openInterestUsd / m.startPx),
        flow: takerFlow(params),
        takenUsd: 0,
      });
    }
  }

  /** Sim time the model has reached (a multiple of stepMs after the start). */
  get time(): number {
    return this.t;
  }

  coins(): string[] {
    return [...this.markets.keys()];
  }

  market(coin: string): ModelMarket | undefined {
    return this.markets.get(coin)?.market;
  }

  params(coin: string): MarketParams | undefined {
    return this.markets.get(coin)?.params;
  }

  price(coin: string): PriceState | undefined {
    return this.markets.get(coin)?.price;
  }

  /** Every market's process state (what a restart continues from). */
  states(): Record<string, PriceState> {
    const out: Record<string, PriceState> = {};
    for (const [coin, m] of this.markets) out[coin] = { ...m.price };
    return out;
  }

  /** Step the grid up to `nowMs`; returns how many steps were taken. */
  advanceTo(nowMs: number): number {
    let steps = 0;
    while (this.t + this.stepMs <= nowMs) {
      this.step();
      steps++;
    }
    return steps;
  }

  /** Move a coin's price to `px` at once (an admin price move); its path continues from there. */
  setPrice(coin: string, px: number): void {
    const m = this.markets.get(coin);
    if (!m) throw new Error(`unknown coin ${coin}`);
    if (!(px > 0) || !Number.isFinite(px)) throw new Error(`price must be positive, got ${px}`);
    m.price = { ...m.price, px };
  }

  /** Force a drift on a coin for a while (a "mover"). */
  addScenario(s: Scenario): void {
    if (!this.markets.has(s.coin)) throw new Error(`unknown coin ${s.coin}`);
    this.scenarios.push(s);
  }

  /** Taker orders decided since the last call (oldest first). */
  drainTakers(): TakerIntent[] {
    return this.takers.splice(0, this.takers.length);
  }

  private step(): void {
    const dt = this.stepMs;
    const now = this.t + dt;
    const btcShock = this.btcRng.normal();
    for (let i = this.scenarios.length - 1; i >= 0; i--) {
      if (this.scenarios[i]!.untilMs <= this.t) this.scenarios.splice(i, 1);
    }
    for (const m of this.markets.values()) {
      let extra = 0;
      for (const s of this.scenarios) if (s.coin === m.market.coin) extra += s.driftPerHour;
      m.price = stepPrice(m.price, m.params, dt, btcShock, m.rng, extra);
      const busy = activity(m.price);
      if (m.rng.chance(1 - Math.exp((-m.flow.perMinute * busy * dt) / 60_000))) {
        const drift = m.price.trendPerDay + extra * 24;
        const inventory = m.takenUsd / (m.params.dayVolumeUsd * INVENTORY_SHARE);
        const buyBias =
          m.price.cascadeMs > 0
            ? m.price.cascadeDir > 0
              ? 0.85
              : 0.15
            : 0.5 + 0.25 * Math.tanh(drift * 20) - 0.3 * Math.tanh(inventory);
        const isBuy = m.rng.chance(buyBias);
        const notionalUsd = Math.max(15, -Math.log(1 - m.rng.next()) * m.flow.meanUsd);
        m.takenUsd += isBuy ? notionalUsd : -notionalUsd;
        this.takers.push({ coin: m.market.coin, isBuy, notionalUsd });
      }
    }
    // Bound the queue: a long advance with nobody draining keeps only the newest intents.
    if (this.takers.length > 2 * MAX_QUEUED_TAKERS)
      this.takers.splice(0, this.takers.length - MAX_QUEUED_TAKERS);
    this.t = now;
  }
}

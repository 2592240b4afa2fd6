import { type Dec, dec } from "../../core/decimal.ts";
import { UserError } from "../../core/errors.ts";
import {
  HOUR_MS,
  type IndexState,
  pendingExcess,
  priceString,
  publish,
  rawPrice,
  replay,
  settleHour,
} from "./oracle.ts";
import type { FeedDef } from "./profiles.ts";
import type { FundingSource } from "./source.ts";
import type { FeedStore, SettledHour } from "./store.ts";
import type { FeedTick } from "./tick.ts";

export interface FeedEngineOptions {
  /** Inception used the first time this feed starts on a store (default: the current hour's start). */
  inceptionMs?: number;
  /** Publish an unchanged price again after this much exchange time, so quiet ≠ dead (default 30 s). */
  maxSilenceMs?: number;
  /** Least wall time between two funding-history reads while an hour awaits its realized rate (default 5 s). */
  historyRetryMs?: number;
}

/**
 * One feed's live index: rebuilt at start from the stored settled hours (the replay log from
 * inception) plus whatever the exchange settled since, then advanced by `poll()` — true-up of newly
 * settled hours, nowcast of the pending time, clamped publication. Every published tick is stored.
 */
export class FeedEngine {
  private state: IndexState | undefined;
  private published: Dec;
  private last: FeedTick | undefined;
  private lastHistoryRead = Number.NEGATIVE_INFINITY;
  private readonly listeners = new Set<(tick: FeedTick) => void>();

  constructor(
    readonly def: FeedDef,
    private readonly store: FeedStore,
    private readonly source: FundingSource,
    private readonly opts: FeedEngineOptions = {},
  ) {
    this.published = def.profile.baseline;
  }

  get symbol(): string {
    return this.def.symbol;
  }

  /** The latest published tick (undefined before the first publication). */
  latest(): FeedTick | undefined {
    return this.last;
  }

  onTick(listener: (tick: FeedTick) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async start(): Promise<void> {
    const now = await this.source.now();
    const sym = this.def.symbol;
    let inception = await this.store.inception(sym);
    if (inception === undefined) {
      inception = this.opts.inceptionMs ?? Math.floor(now / HOUR_MS) * HOUR_MS;
      await this.store.setInception(sym, inception);
    } else if (this.opts.inceptionMs !== undefined && this.opts.inceptionMs !== inception) {
      throw new UserError(
        `${sym} was started with inception ${new Date(inception).toISOString()}; use a fresh FEEDS_DB to change it`,
      );
    }
    this.state = replay(this.def.profile, inception, await this.store.hours(sym));
    await this.checkAgainstSaved(this.state);
    this.last = await this.store.lastTick(sym);
    if (this.last) this.published = dec(this.last.oracle_px);
    await this.settleNewHours(now, true);
  }

  /**
   * The replay from inception must land exactly on the state saved with the last settlement; if not,
   * the methodology profile or the stored hours changed, and publishing would jump.
   */
  private async checkAgainstSaved(state: IndexState): Promise<void> {
    const saved = await this.store.state(this.def.symbol);
    if (!saved) return;
    const same =
      saved.settledThroughMs === state.settledThroughMs &&
      dec(saved.cumulative).eq(state.cumulative) &&
      dec(saved.k).eq(state.k);
    if (!same) {
      throw new UserError(
        `${this.def.symbol}: replaying the stored hours does not reproduce the saved index (profile changed?); use a fresh FEEDS_DB`,
      );
    }
  }

  /** One step: settle what the exchange has settled, nowcast the rest, publish if the price moved. */
  async poll(): Promise<FeedTick | null> {
    const state = this.requireState();
    const now = await this.source.now();
    if (now >= state.settledThroughMs + HOUR_MS) await this.settleNewHours(now, false);
    const rate = await this.source.predicted(this.def.coin, this.def.dex);
    return this.publishAt(now, rate);
  }

  private requireState(): IndexState {
    if (!this.state) throw new Error(`${this.def.symbol} feed polled before start()`);
    return this.state;
  }

  /**
   * Fold in the hours the exchange settled since our last one. An hour that ends after our last
   * published tick (a replay after downtime) gets its own tick at its end; otherwise the next live
   * publication carries the true-up.
   */
  private async settleNewHours(now: number, force: boolean): Promise<void> {
    const wall = Date.now();
    if (!force && wall - this.lastHistoryRead < (this.opts.historyRetryMs ?? 5_000)) return;
    this.lastHistoryRead = wall;
    let state = this.requireState();
    const records = await this.source.history(this.def.coin, state.settledThroughMs + 1);
    const fresh: SettledHour[] = [];
    for (const r of records) {
      // Settlements land a few ms after the hour; the nearest boundary names the hour.
      const hourEndMs = Math.round(r.time / HOUR_MS) * HOUR_MS;
      if (hourEndMs <= state.settledThroughMs || hourEndMs > now) continue;
      state = settleHour(this.def.profile, state, hourEndMs, r.rate);
      fresh.push({ hourEndMs, rate: r.rate });
      if (!this.last || hourEndMs > this.last.timestamp) {
        this.state = state;
        await this.publishAt(hourEndMs, r.rate, true);
      }
    }
    if (fresh.length > 0) {
      await this.store.addHours(this.def.symbol, fresh, {
        cumulative: state.cumulative.toFixed(),
        k: state.k.toFixed(),
        settledThroughMs: state.settledThroughMs,
      });
    }
    this.state = state;
  }

  /** Publish a tick at `ts` if due; it is stored before anyone hears of it (a refused write publishes nothing). */
  private async publishAt(ts: number, rate: string, force = false): Promise<FeedTick | null> {
    const state = this.requireState();
    const raw = rawPrice(this.def.profile, state, pendingExcess(state, rate, ts));
    const px = publish(this.published, raw);
    const last = this.last;
    // Time must advance between publications: each one may move the clamped price by 1%.
    if (last && ts <= last.timestamp) return null;
    const silent = last === undefined || ts - last.timestamp >= (this.opts.maxSilenceMs ?? 30_000);
    const moved = !px.eq(this.published);
    if (!force && !moved && !silent) return null;
    const tick: FeedTick = {
      feed: this.def.symbol,
      oracle_px: priceString(px),
      timestamp: ts,
      raw_px: priceString(raw),
      funding_rate: dec(rate).toFixed(),
      fixed_leg: state.k.toFixed(),
      settled_through: state.settledThroughMs,
    };
    await this.store.addTick(tick);
    this.published = px;
    this.last = tick;
    for (const l of this.listeners) l(tick);
    return tick;
  }
}

import { mapLimit } from "../../core/concurrency.ts";
import { dec, wire } from "../../core/decimal.ts";
import type { Log } from "../../db/log.ts";
import { StoreUnavailableError } from "../../db/store-health.ts";
import type { BuilderFillRow } from "../../sim/server/builder-fills-file.ts";
import { attributeFills, fileDay, type WalletFill } from "./attribution.ts";
import type { PointsConfig } from "./config.ts";
import type { FillHistory, SourceFill } from "./fill-history.ts";
import { type Exclusion, fillPoints, type ScoringFill, scoreWallet, usd } from "./scoring.ts";
import type { MarkLookup } from "./store.ts";
import { wireTotals } from "./totals.ts";

/** What the points service needs from the exchange. */
export interface FillSource {
  /** Exchange time now, ms. */
  now(): Promise<number>;
  /** Every fill of `user` (any coin) from `startMs`, following pages (the exchange keeps the last 10,000). */
  fills(user: string, startMs: number): Promise<SourceFill[]>;
  /** Largest builder fee `user` has approved for `builder` (tenths of a bp; 0 = none). */
  maxBuilderFee(user: string, builder: string): Promise<number>;
}

/** A builder's day file, indexed by lowercase user; null while not published. */
export interface DayFiles {
  day(builder: string, day: string): Promise<Map<string, BuilderFillRow[]> | null>;
}

export interface WalletPoints {
  address: string;
  market: string;
  total_points: string;
  eligible_volume_usd: string;
  provisional_points: string;
  fills_total: number;
  fills_eligible: number;
  by_day: { date: string; points: string; eligible_volume_usd: string; capped_volume_usd: string }[];
  excluded: Record<Exclusion, number>;
  /** Whether every fill since the program start was seen (see FillHistory). */
  history: { complete: boolean; missing_before: string | null };
  as_of: string;
  /** Present (and true) only when the store could not be read: the last result computed here, as of `as_of`. */
  stale?: true;
}

/** One scored fill, for `?fills=true`. */
export interface FillDetail {
  time: number;
  side: "B" | "A";
  px: string;
  sz: string;
  role: "maker" | "taker";
  /** Oracle mark used for the band (null: none within tolerance). */
  mark: string | null;
  /** Builder attribution: "confirmed" by the day's file, "provisional" until it is published, or null. */
  attribution: "confirmed" | "provisional" | null;
  provisional: boolean;
  volume_usd: string;
  eligible_volume_usd: string;
  points: string;
  excluded: Exclusion | null;
}

interface WalletResult {
  summary: WalletPoints;
  fills: FillDetail[];
}

interface PointsDeps {
  fills: FillSource;
  history: FillHistory;
  files: DayFiles;
  marks: MarkLookup;
  /** Hears lookups refused while the store is unavailable. */
  log?: Log;
}

/**
 * Address-level point estimates: the wallet's fills of the scored coin since the program start,
 * attributed to eligible builders, enriched with the stored oracle mark, then scored. Results are
 * reused for `cacheMs`; concurrent requests for one wallet share one computation.
 */
export class PointsService {
  private readonly cache = new Map<string, { at: number; result: WalletResult }>();
  private readonly inflight = new Map<string, Promise<WalletResult>>();

  constructor(
    readonly cfg: PointsConfig,
    private readonly deps: PointsDeps,
  ) {}

  marketConfig() {
    const r = this.cfg.rules;
    return {
      network: this.cfg.network ?? null,
      market: this.cfg.market,
      coin: this.cfg.coin,
      formula: "points = (volumeUSD / 1000) * marketMult * roleMult * proximityGate",
      market_multiplier: Number(r.marketMult),
      role_multipliers: { maker: Number(r.makerMult), taker: Number(r.takerMult) },
      eligible_builders: this.cfg.builders.map((b) => ({ name: b.name, address: b.address.toLowerCase() })),
      oracle_band: {
        bps: Number(r.bandBps),
        edge_inclusive: true,
        mark: "last stored BTCSWP oracle_px at or before the fill time",
        mark_tolerance_ms: this.cfg.markToleranceMs,
      },
      daily_cap: {
        eligible_volume_usd: Number(r.dailyCapUsd),
        per: "wallet",
        window: "UTC day",
        order: "fill time",
      },
      program_start: new Date(this.cfg.programStartMs).toISOString(),
      attribution: {
        source: `${this.cfg.statsUrl}/${this.cfg.statsNetwork}/builder_fills/{builder}/{YYYYMMDD}.csv.lz4`,
        provisional: "until the day's file is published: builder fee paid and an eligible builder approved",
      },
    };
  }

  /**
   * A wallet's points. While the store is unavailable, the last result computed here is answered
   * marked `stale`; with none, StoreUnavailableError (503).
   */
  async wallet(address: string): Promise<WalletResult> {
    const key = address.toLowerCase();
    const hit = this.cache.get(key);
    if (hit && Date.now() - hit.at < this.cfg.cacheMs) return hit.result;
    let pending = this.inflight.get(key);
    if (!pending) {
      pending = this.compute(key).finally(() => this.inflight.delete(key));
      this.inflight.set(key, pending);
      pending.then(
        (result) => this.remember(key, result),
        () => undefined,
      );
    }
    try {
      return await pending;
    } catch (err) {
      if (!(err instanceof StoreUnavailableError)) throw err;
      const last = this.cache.get(key)?.result;
      if (last) return { summary: { ...last.summary, stale: true }, fills: last.fills };
      this.deps.log?.warn(
        { event: "lookup_refused", wallet: key },
        "store unavailable: points lookup refused",
      );
      throw err;
    }
  }

  /**
   * Sync the fills of every wallet seen so far, a few at a time, so their history stays whole even
   * when nobody asks about them for a while (through `history`: the elected writer's fenced one on
   * replicas). Returns how many synced; failures (the store's included) are reported, not thrown.
   */
  async followAll(
    onError: (user: string, err: unknown) => void,
    history: FillHistory = this.deps.history,
  ): Promise<number> {
    let users: string[];
    try {
      users = await history.knownUsers();
    } catch (err) {
      onError("(every known wallet)", err);
      return 0;
    }
    const done = await mapLimit(users, 4, async (user) => {
      try {
        await history.sync(user, (u, from) => this.deps.fills.fills(u, from), this.cfg.programStartMs);
        return true;
      } catch (err) {
        onError(user, err);
        return false;
      }
    });
    if (done.every(Boolean)) this.lastFollowAt = Date.now();
    return done.filter(Boolean).length;
  }

  /** When `followAll` last synced every known wallet (ms), or null. */
  lastFollowAt: number | null = null;

  private remember(key: string, result: WalletResult): void {
    const now = Date.now();
    // Past their cacheMs, results stay only as the stale answer for an outage; bounded all the same.
    if (this.cache.size > 10_000) {
      for (const [k, v] of this.cache) if (now - v.at >= this.cfg.cacheMs) this.cache.delete(k);
    }
    this.cache.set(key, { at: now, result });
  }

  private async compute(user: string): Promise<WalletResult> {
    const [nowMs, synced] = await Promise.all([
      this.deps.fills.now(),
      // A wallet another replica synced within the cache period is not fetched again.
      this.deps.history.sync(
        user,
        (u, from) => this.deps.fills.fills(u, from),
        this.cfg.programStartMs,
        this.cfg.cacheMs,
      ),
    ]);
    const { fills, coverage } = synced;

    const days = [...new Set(fills.map((f) => fileDay(f.time)))];
    const rowsByDay = new Map<string, BuilderFillRow[]>();
    await Promise.all(
      days.flatMap((day) =>
        this.cfg.builders.map(async (b) => {
          const index = await this.deps.files.day(b.address, day);
          const rows = index?.get(user);
          if (rows) rowsByDay.set(day, [...(rowsByDay.get(day) ?? []), ...rows]);
        }),
      ),
    );
    const approves = await this.approvesEligibleBuilder(user, fills, nowMs);
    const attribution = attributeFills(fills, {
      user,
      rowsOfDay: (day) => rowsByDay.get(day),
      approvesEligibleBuilder: approves,
      nowMs,
      provisionalDays: this.cfg.provisionalDays,
    });

    const marks = await this.deps.marks.marksAt(
      fills.map((f) => f.time),
      this.cfg.markToleranceMs,
    );
    const scoring: ScoringFill[] = fills.map((f, i) => ({
      time: f.time,
      px: f.px,
      sz: f.sz,
      crossed: f.crossed,
      mark: marks[i] ?? null,
      attribution: attribution[i] ?? null,
    }));
    const { outcomes, score } = scoreWallet(this.cfg.rules, scoring);
    const details: FillDetail[] = outcomes.map((o, i) => {
      const f = fills[i]!;
      return {
        time: f.time,
        side: f.side,
        px: f.px,
        sz: f.sz,
        role: o.taker ? "taker" : "maker",
        mark: scoring[i]!.mark,
        attribution: scoring[i]!.attribution,
        provisional: o.provisional,
        volume_usd: wire(usd(o.volume)),
        eligible_volume_usd: wire(usd(o.eligible)),
        points: wire(fillPoints(this.cfg.rules, o)),
        excluded: o.excluded,
      };
    });
    const summary: WalletPoints = {
      address: user,
      market: this.cfg.market,
      ...wireTotals(score),
      history: {
        complete: coverage.complete,
        missing_before:
          coverage.missingBeforeMs === null ? null : new Date(coverage.missingBeforeMs).toISOString(),
      },
      as_of: new Date(nowMs).toISOString(),
    };
    return { summary, fills: details };
  }

  /** Only asked when some recent fill paid a builder fee (the one case where it decides anything). */
  private async approvesEligibleBuilder(
    user: string,
    fills: readonly WalletFill[],
    nowMs: number,
  ): Promise<boolean> {
    const horizon = (Math.floor(nowMs / 86_400_000) - this.cfg.provisionalDays) * 86_400_000;
    const needed = fills.some(
      (f) => f.time >= horizon && f.builderFee !== undefined && dec(f.builderFee).gt(0),
    );
    if (!needed) return false;
    const fees = await Promise.all(
      this.cfg.builders.map((b) => this.deps.fills.maxBuilderFee(user, b.address)),
    );
    return fees.some((f) => f > 0);
  }
}

import { dec } from "../../core/decimal.ts";
import { type BuilderFillRow, decodeBuilderFillsFile } from "../../sim/server/builder-fills-file.ts";
import type { Attribution } from "./scoring.ts";
import { canonicalDecimal } from "./units.ts";

/**
 * Builder attribution of a wallet's fills. A public fill names no builder; the per-builder daily
 * fill files do, matched on (user, coin, side, px, sz, time to the second). Until a day's file is
 * published, a fill that paid a builder fee, by a wallet that has approved an eligible builder, is
 * attributed provisionally.
 */

/** The fields of an exchange fill attribution needs. */
export interface WalletFill {
  time: number;
  coin: string;
  side: "B" | "A";
  px: string;
  sz: string;
  builderFee?: string;
}

const DAY_MS = 86_400_000;

/** UTC day of a time, as the files name it (YYYYMMDD). */
export function fileDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10).replaceAll("-", "");
}

function matchKey(
  user: string,
  coin: string,
  side: "B" | "A",
  px: string,
  sz: string,
  second: number,
): string {
  return `${user.toLowerCase()}|${coin}|${side}|${canonicalDecimal(px)}|${canonicalDecimal(sz)}|${second}`;
}

function rowKey(row: BuilderFillRow): string {
  return matchKey(
    row.user,
    row.coin,
    row.side === "Bid" ? "B" : "A",
    row.px,
    row.sz,
    Math.floor(Date.parse(row.time) / 1000),
  );
}

export interface AttributionContext {
  /** The wallet whose fills these are. */
  user: string;
  /**
   * Rows of this wallet in the published eligible-builder files of a day (YYYYMMDD), all builders
   * together; undefined when no eligible builder's file for that day is published.
   */
  rowsOfDay(day: string): readonly BuilderFillRow[] | undefined;
  /** Does the wallet currently approve an eligible builder (maxBuilderFee > 0)? */
  approvesEligibleBuilder: boolean;
  nowMs: number;
  /** Days before today whose fills may still be provisional (files publish after the day closes). */
  provisionalDays: number;
}

/** Attribution of each fill (same order as given). Each file row confirms at most one fill. */
export function attributeFills(fills: readonly WalletFill[], ctx: AttributionContext): Attribution[] {
  const pools = new Map<string, Map<string, number>>();
  const pool = (day: string): Map<string, number> => {
    let p = pools.get(day);
    if (!p) {
      p = new Map();
      for (const row of ctx.rowsOfDay(day) ?? []) {
        const k = rowKey(row);
        p.set(k, (p.get(k) ?? 0) + 1);
      }
      pools.set(day, p);
    }
    return p;
  };
  const today = Math.floor(ctx.nowMs / DAY_MS);
  return fills.map((f) => {
    const day = fileDay(f.time);
    const p = pool(day);
    const k = matchKey(ctx.user, f.coin, f.side, f.px, f.sz, Math.floor(f.time / 1000));
    const left = p.get(k) ?? 0;
    if (left > 0) {
      p.set(k, left - 1);
      return "confirmed";
    }
    const recent = today - Math.floor(f.time / DAY_MS) <= ctx.provisionalDays;
    const paidBuilder = f.builderFee !== undefined && dec(f.builderFee).gt(0);
    return recent && paidBuilder && ctx.approvesEligibleBuilder ? "provisional" : null;
  });
}

interface BuilderFilesOptions {
  /** e.g. https://stats-data.hyperliquid.xyz */
  statsUrl: string;
  statsNetwork: "Mainnet" | "Testnet";
  /** Only rows of this coin are kept. */
  coin: string;
  /** How long "not published" (403/404) is believed before asking again (default 5 min). */
  missingTtlMs?: number;
  timeoutMs?: number;
}

type DayIndex = Map<string, BuilderFillRow[]>;

/**
 * The builder fill files over HTTP, cached: a published file never changes, so it is kept (only the
 * scored coin's rows, indexed by user); a missing one is asked for again after `missingTtlMs`.
 */
export class BuilderFiles {
  private readonly cache = new Map<string, { index: DayIndex | null; at: number }>();
  private readonly inflight = new Map<string, Promise<DayIndex | null>>();

  constructor(private readonly opts: BuilderFilesOptions) {}

  url(builder: string, day: string): string {
    return `${this.opts.statsUrl}/${this.opts.statsNetwork}/builder_fills/${builder.toLowerCase()}/${day}.csv.lz4`;
  }

  /** Rows of a builder's day file indexed by lowercase user; null when the file is not published. */
  async day(builder: string, day: string): Promise<DayIndex | null> {
    const key = `${builder.toLowerCase()}/${day}`;
    const hit = this.cache.get(key);
    if (hit && (hit.index !== null || Date.now() - hit.at < (this.opts.missingTtlMs ?? 300_000)))
      return hit.index;
    let pending = this.inflight.get(key);
    if (!pending) {
      pending = this.load(builder, day).finally(() => this.inflight.delete(key));
      this.inflight.set(key, pending);
    }
    const index = await pending;
    this.cache.set(key, { index, at: Date.now() });
    return index;
  }

  private async load(builder: string, day: string): Promise<DayIndex | null> {
    const url = this.url(builder, day);
    const res = await fetch(url, { signal: AbortSignal.timeout(this.opts.timeoutMs ?? 30_000) });
    if (res.status === 403 || res.status === 404) {
      await res.body?.cancel();
      return null;
    }
    if (!res.ok) {
      await res.body?.cancel();
      throw new Error(`builder fills ${url} answered ${res.status}`);
    }
    const rows = decodeBuilderFillsFile(new Uint8Array(await res.arrayBuffer()));
    const index: DayIndex = new Map();
    for (const row of rows) {
      if (row.coin !== this.opts.coin) continue;
      const user = row.user.toLowerCase();
      const list = index.get(user);
      if (list) list.push(row);
      else index.set(user, [row]);
    }
    return index;
  }
}

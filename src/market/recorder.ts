import { ASSET_CTX_SPEC } from "./asset-ctx.ts";
import { BOOKS_SPEC } from "./books.ts";
import type { DatasetSpec } from "./day-store.ts";
import type { MarketHistorySource } from "./fetch.ts";
import { writeFunding } from "./funding.ts";
import { DatasetJournal } from "./journal.ts";
import { coinDir, dayOf } from "./layout.ts";
import { TRADES_SPEC } from "./trades.ts";
import type { AssetCtxRow, BookRow, TradeRow } from "./types.ts";

/** What the exchange pushes, in the shapes of Hyperliquid's WebSocket channels. */
interface WsTrade {
  time: number;
  px: string;
  sz: string;
  side: "B" | "A";
  tid: number | string;
}
interface WsBook {
  time: number;
  levels: readonly (readonly { px: string; sz: string }[])[];
}
interface WsAssetCtx {
  funding: string;
  openInterest: string;
  oraclePx: string;
  markPx: string;
  midPx?: string | null;
  premium?: string | null;
  dayNtlVlm: string;
  prevDayPx: string;
}

interface RecorderOptions {
  root: string;
  network: string;
  coins: readonly string[];
  /** Book levels kept per side (default 20, all Hyperliquid sends). */
  bookDepth?: number;
  /** The clock asset contexts are stamped with and days rotate on. */
  now?: () => number;
  /** Where settled funding is read after each hour (the WebSocket carries only the running rate). */
  funding?: MarketHistorySource;
}

const HOUR = 3_600_000;
/** Settlements are read this long after the hour, once the exchange has published them. */
const FUNDING_SETTLE_DELAY_MS = 15_000;

interface CoinJournals {
  trades: DatasetJournal<TradeRow>;
  books: DatasetJournal<BookRow>;
  ctx: DatasetJournal<AssetCtxRow>;
}

/**
 * Records trades, book snapshots and asset contexts of some coins into the market store: rows go to
 * per-day journals, `tick()` (called every 250 ms by the feed) puts them on disk, and when the UTC
 * day turns the finished day is compacted into its Parquet file; `stop()` compacts everything.
 */
export class MarketRecorder {
  private readonly journals = new Map<string, CoinJournals>();
  private readonly now: () => number;
  private readonly bookDepth: number;
  private day: string;
  private fundingHour: number;
  private running: Promise<void> = Promise.resolve();
  private stopped = false;
  /** Rows recorded so far, per dataset. */
  readonly counts = { trades: 0, l2book: 0, asset_ctx: 0, funding: 0 };

  constructor(private readonly opts: RecorderOptions) {
    this.now = opts.now ?? Date.now;
    this.bookDepth = opts.bookDepth ?? 20;
    this.day = dayOf(this.now());
    this.fundingHour = Math.floor(this.now() / HOUR) * HOUR;
    for (const coin of opts.coins) {
      const journal = <R extends { t: number }>(spec: DatasetSpec<R>) =>
        new DatasetJournal(spec, coinDir(opts.root, opts.network, spec.dataset, coin));
      this.journals.set(coin, {
        trades: journal(TRADES_SPEC),
        books: journal(BOOKS_SPEC),
        ctx: journal(ASSET_CTX_SPEC),
      });
    }
  }

  trades(coin: string, trades: readonly WsTrade[]): void {
    const j = this.of(coin);
    for (const t of trades) j.trades.add({ t: t.time, px: t.px, sz: t.sz, side: t.side, tid: String(t.tid) });
    this.counts.trades += trades.length;
  }

  book(coin: string, book: WsBook): void {
    const side = (levels: readonly { px: string; sz: string }[] | undefined): [string, string][] =>
      (levels ?? []).slice(0, this.bookDepth).map((l) => [l.px, l.sz]);
    this.of(coin).books.add({ t: book.time, bids: side(book.levels[0]), asks: side(book.levels[1]) });
    this.counts.l2book++;
  }

  assetCtx(coin: string, ctx: WsAssetCtx): void {
    this.of(coin).ctx.add({
      t: this.now(),
      funding: ctx.funding,
      openInterest: ctx.openInterest,
      oraclePx: ctx.oraclePx,
      markPx: ctx.markPx,
      midPx: ctx.midPx ?? null,
      premium: ctx.premium ?? null,
      dayNtlVlm: ctx.dayNtlVlm,
      prevDayPx: ctx.prevDayPx,
    });
    this.counts.asset_ctx++;
  }

  /** Flushes the journals; at a new UTC day compacts the days before it; after each hour reads its funding. */
  tick(): Promise<void> {
    return this.queue(() => this.step(false));
  }

  /** Flushes and compacts every journal. Later rows are refused. */
  stop(): Promise<void> {
    return this.queue(() => this.step(true));
  }

  /** Compacts journals left by an earlier run (e.g. one that was killed) of days before today. */
  recover(): Promise<void> {
    return this.queue(async () => {
      for (const j of this.journals.values())
        for (const d of Object.values(j)) await d.compactBefore(this.day);
    });
  }

  /** One step at a time; a failed step (disk full, exchange down) does not block the next. */
  private queue(step: () => Promise<void>): Promise<void> {
    const run = this.running.then(step);
    this.running = run.catch(() => undefined);
    return run;
  }

  private of(coin: string): CoinJournals {
    if (this.stopped) throw new Error("the recorder is stopped");
    const j = this.journals.get(coin);
    if (!j) throw new Error(`not recording ${coin}`);
    return j;
  }

  private async step(final: boolean): Promise<void> {
    if (this.stopped) return;
    const all = [...this.journals.values()].flatMap(
      (j) => [j.trades, j.books, j.ctx] as DatasetJournal<{ t: number }>[],
    );
    const today = dayOf(this.now());
    const rotated = today !== this.day;
    this.day = today;
    for (const j of all) {
      const days = await j.flush();
      // A new day compacts the finished ones; a late row of a finished day is compacted right away.
      if (final) await j.compactAll();
      else if (rotated || days.some((d) => d < today)) await j.compactBefore(today);
    }
    if (final) {
      this.stopped = true;
      return;
    }
    await this.readFunding();
  }

  private async readFunding(): Promise<void> {
    const source = this.opts.funding;
    const now = this.now();
    const hour = Math.floor((now - FUNDING_SETTLE_DELAY_MS) / HOUR) * HOUR;
    if (!source || hour <= this.fundingHour) return;
    const from = this.fundingHour;
    this.fundingHour = hour;
    for (const coin of this.opts.coins) {
      const page = await source.fundingHistory({ coin, startTime: from, endTime: now });
      const rows = page.map((f) => ({ t: f.time, rate: f.fundingRate, premium: f.premium }));
      await writeFunding({ root: this.opts.root, network: this.opts.network, coin }, rows);
      this.counts.funding += rows.length;
    }
  }
}

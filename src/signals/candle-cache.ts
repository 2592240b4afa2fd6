import { type Candle, type CandleInterval, INTERVAL_MS } from "./candles.ts";
import type { MarketDataSource } from "./source.ts";

/**
 * What a reader needs of a series:
 * - `closed`: every bar closed by now, as the exchange has it (the scanner drops the forming bar);
 * - `forming-present`: the same, and the bar forming now there if the exchange has it, its figures
 *   as of the last read (movers' breakout range leaves out the newest bar, whichever it is);
 * - `forming`: the forming bar's figures too, no older than the cache's refresh age (movers' volume).
 */
export type SeriesNeed = "closed" | "forming-present" | "forming";

/** A series as answered to one reader: the bars opening at or after `from` (its moment − lookback). */
interface SeriesWindow {
  candles: Candle[];
  from: number;
}

/** What the scanner and movers read candles through (a CandleCache; tests pass plain full reads). */
export interface CandleReader {
  readonly failures: number;
  /** The bars of a series opening within `lookbackMs` of now (null when it could not be read). */
  window(
    coin: string,
    interval: CandleInterval,
    lookbackMs: number,
    need?: SeriesNeed,
  ): Promise<SeriesWindow | null>;
}

/**
 * A bar is taken as final once read this long after its close: an exchange may still fold a trade
 * stamped just before the close into it for a moment.
 */
const SETTLE_MS = 5_000;

interface Series {
  candles: Candle[];
  /** When the series was last read (source time). */
  readAt: number;
  /** The series holds every bar opening at or after this time. */
  fromMs: number;
}

const bucketStart = (interval: CandleInterval, t: number) =>
  Math.floor(t / INTERVAL_MS[interval]) * INTERVAL_MS[interval];

/**
 * Candle series kept in memory, one per coin and interval, shared by the scanner and movers.
 *
 * Candle reads are the heaviest requests of a scan (weight 20 each, plus 1 per 60 candles), so:
 * - a closed bar is read once: a later read asks only from the bar that was forming at the last
 *   read (one or two candles back), and the answer replaces the cached tail;
 * - a series is read again only when its reader needs it: for `closed`, once a bar has closed since
 *   the last read; for `forming-present`, also while the bar forming now has not printed; for
 *   `forming`, once a bar has closed or `maxAgeMs` (or a quarter of its bar, whichever is longer)
 *   has passed, and with `maxAgeMs` 0 (tests, replays) at every call;
 * - the first read of a series covers the longest lookback planned for its interval (`plan`), so
 *   the scanner's 200 h of 1h bars and movers' 48 h cost one read;
 * - concurrent requests for one series share one read.
 * A reader gets the bars opening within its lookback — for the bars it needs, the same as a full
 * read at that moment. Failures are counted, not hidden; a failed read keeps the last good series.
 */
export class CandleCache implements CandleReader {
  private readonly series = new Map<string, Series>();
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly planned = new Map<CandleInterval, number>();
  failures = 0;

  constructor(
    private readonly source: MarketDataSource,
    private readonly maxAgeMs = 300_000,
  ) {}

  /** Every coin's first read of `interval` covers at least `lookbackMs`. */
  plan(interval: CandleInterval, lookbackMs: number): void {
    this.planned.set(interval, Math.max(this.planned.get(interval) ?? 0, lookbackMs));
  }

  async window(
    coin: string,
    interval: CandleInterval,
    lookbackMs: number,
    need: SeriesNeed = "closed",
  ): Promise<SeriesWindow | null> {
    this.plan(interval, lookbackMs);
    const key = `${coin}|${interval}`;
    // A read of this series in flight may answer this reader too.
    for (let pending = this.inFlight.get(key); pending; pending = this.inFlight.get(key)) await pending;
    const now = this.source.now();
    const held = this.series.get(key);
    if (held && this.answers(held, interval, now, lookbackMs, need))
      return since(held.candles, now - lookbackMs);
    const read = this.read(key, coin, interval, held, now, lookbackMs);
    this.inFlight.set(
      key,
      read.then(
        () => undefined,
        () => undefined,
      ),
    );
    try {
      await read;
    } catch {
      this.failures++;
      return held ? since(held.candles, now - lookbackMs) : null;
    } finally {
      this.inFlight.delete(key);
    }
    return since(this.series.get(key)!.candles, now - lookbackMs);
  }

  /** Whether the held series gives this reader what a read now would (for the bars it needs). */
  private answers(
    s: Series,
    interval: CandleInterval,
    now: number,
    lookbackMs: number,
    need: SeriesNeed,
  ): boolean {
    if (s.fromMs > now - lookbackMs) return false;
    // Every bar closed by now was final at the last read.
    const closedSince = bucketStart(interval, s.readAt - SETTLE_MS) < bucketStart(interval, now);
    if (closedSince) return false;
    if (need === "closed") return true;
    if (need === "forming-present") return s.candles.at(-1)?.t === bucketStart(interval, now);
    if (this.maxAgeMs === 0) return false;
    return now - s.readAt < Math.max(this.maxAgeMs, INTERVAL_MS[interval] / 4);
  }

  private async read(
    key: string,
    coin: string,
    interval: CandleInterval,
    held: Series | undefined,
    now: number,
    lookbackMs: number,
  ): Promise<void> {
    const span = Math.max(lookbackMs, this.planned.get(interval) ?? 0);
    if (held && held.fromMs <= now - lookbackMs) {
      // Only the bars that were not final at the last read: one or two candles.
      const from = bucketStart(interval, held.readAt - SETTLE_MS);
      const tail = await this.source.candles(coin, interval, from, now);
      const kept = held.candles.filter((c) => c.t < from && c.t >= now - span);
      this.series.set(key, {
        candles: kept.concat(tail.filter((c) => c.t >= from)),
        readAt: now,
        fromMs: Math.max(held.fromMs, now - span),
      });
      return;
    }
    const candles = await this.source.candles(coin, interval, now - span, now);
    this.series.set(key, { candles, readAt: now, fromMs: now - span });
  }
}

/** The candles that open at or after `from` (the whole series when it starts there already). */
function since(candles: Candle[], from: number): SeriesWindow {
  return {
    candles: candles.length === 0 || candles[0]!.t >= from ? candles : candles.filter((c) => c.t >= from),
    from,
  };
}

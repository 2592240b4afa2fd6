import type {
  BookRow,
  CandleRow,
  FundingRow,
  ReplayHistory,
  TradeRow,
} from "../../src/backtest/market-history.ts";
import { allMinutes, backfill } from "../../src/sim/model/backfill.ts";
import { marketParams } from "../../src/sim/model/market-params.ts";

const HOUR = 3_600_000;

/** A scaled integer as a decimal string ("12345", 2 → "123.45"), trailing zeros dropped. */
function scaled(x: number, decimals: number): string {
  if (decimals === 0) return String(x);
  const s = String(Math.abs(x)).padStart(decimals + 1, "0");
  const int = s.slice(0, -decimals);
  const frac = s.slice(-decimals).replace(/0+$/, "");
  return `${x < 0 ? "-" : ""}${int}${frac ? `.${frac}` : ""}`;
}

/**
 * 1 m candles and hourly funding from the sim world's own history model (seeded), shaped as the
 * market-data store returns them: `days` of history ending at `endMs`.
 */
export function simHistory(opts: {
  coin: string;
  szDecimals: number;
  endPx: number;
  endMs: number;
  days: number;
  seed?: number;
}): ReplayHistory & { candles: CandleRow[] } {
  const seed = opts.seed ?? 7;
  const [past] = backfill(
    [
      {
        coin: opts.coin,
        szDecimals: opts.szDecimals,
        endPx: opts.endPx,
        params: marketParams(opts.coin, seed),
      },
    ],
    { seed, endMs: opts.endMs, days: opts.days },
  );
  if (!past) throw new Error("no history");
  const h = allMinutes(past.candles);
  const pxDec = 6 - opts.szDecimals;
  const candles: CandleRow[] = new Array(h.c.length);
  for (let i = 0; i < h.c.length; i++) {
    const t = h.startMs + i * 60_000;
    candles[i] = {
      t,
      T: t + 59_999,
      o: scaled(h.o[i]!, pxDec),
      h: scaled(h.h[i]!, pxDec),
      l: scaled(h.l[i]!, pxDec),
      c: scaled(h.c[i]!, pxDec),
      v: scaled(Math.round(h.v[i]!), opts.szDecimals),
      n: h.n[i]!,
    };
  }
  const funding: FundingRow[] = [];
  for (let i = 0; i < past.premiums.length; i++) {
    const p = past.premiums[i]!;
    const rate = Math.max(-0.04, Math.min(0.04, (p + Math.max(-0.0005, Math.min(0.0005, 0.0001 - p))) / 8));
    funding.push({
      t: past.hourStartMs + (i + 1) * HOUR,
      rate: scaled(Math.round(rate * 1e8), 8),
      premium: scaled(Math.round(p * 1e8), 8),
    });
  }
  return { interval: "1m", candles, funding };
}

/**
 * Trades and book snapshots derived from candles, for speed measurements of the trade replay:
 * per minute, `trades` prints walking open → low → high → close (sellers hitting on the way down,
 * buyers lifting on the way up) and `books` one-tick-wide snapshots of 3 levels a side.
 */
export function simTape(
  h: { candles: readonly CandleRow[] },
  opts: { trades: number; books: number; tick: number },
): { trades: TradeRow[]; books: BookRow[] } {
  const trades: TradeRow[] = [];
  const books: BookRow[] = [];
  let tid = 0;
  for (const c of h.candles) {
    const o = Number(c.o);
    const path = [o, Number(c.l), Number(c.h), Number(c.c)];
    for (let k = 0; k < opts.trades; k++) {
      const f = (k / opts.trades) * 3;
      const seg = Math.min(2, Math.floor(f));
      const a = path[seg]!;
      const b = path[seg + 1]!;
      const px = Math.round((a + (b - a) * (f - seg)) / opts.tick) * opts.tick;
      tid += 1;
      trades.push({
        t: c.t + Math.floor((k * 60_000) / opts.trades),
        px: px.toFixed(2),
        sz: "0.5",
        side: b >= a ? "B" : "A",
        tid: String(tid),
      });
    }
    for (let k = 0; k < opts.books; k++) {
      const mid = Math.round(path[Math.min(3, k)]! / opts.tick) * opts.tick;
      const level = (i: number, dir: number): [string, string] => [
        (mid + dir * i * opts.tick).toFixed(2),
        "3",
      ];
      books.push({
        t: c.t + Math.floor((k * 60_000) / opts.books) + 1,
        bids: [level(1, -1), level(2, -1), level(3, -1)],
        asks: [level(1, 1), level(2, 1), level(3, 1)],
      });
    }
  }
  return { trades, books };
}

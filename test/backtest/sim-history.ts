import type { CandleRow, FundingRow, ReplayHistory } from "../../src/backtest/market-history.ts";
import { backfill } from "../../src/sim/model/backfill.ts";
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
}): ReplayHistory {
  const seed = opts.seed ?? 7;
  const [h] = backfill(
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
  if (!h) throw new Error("no history");
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
  for (let i = 0; i < h.premiums.length; i++) {
    const p = h.premiums[i]!;
    const rate = Math.max(-0.04, Math.min(0.04, (p + Math.max(-0.0005, Math.min(0.0005, 0.0001 - p))) / 8));
    funding.push({
      t: h.hourStartMs + (i + 1) * HOUR,
      rate: scaled(Math.round(rate * 1e8), 8),
      premium: scaled(Math.round(p * 1e8), 8),
    });
  }
  return { interval: "1m", candles, funding };
}

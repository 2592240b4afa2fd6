import type { Candle } from "../../src/signals/candles.ts";
import type { MarketCtx } from "../../src/signals/market.ts";
import type { AssetCandles } from "../../src/signals/scanner.ts";

export const NOW = 1_700_000_000_000;

/** Closed candles ending before NOW, one per close given. */
export function candlesFrom(
  closes: number[],
  opts: { interval?: number; v?: number | number[]; spread?: number } = {},
): Candle[] {
  const iv = opts.interval ?? 3_600_000;
  const n = closes.length;
  return closes.map((c, i) => {
    const o = i === 0 ? c : closes[i - 1]!;
    const spread = opts.spread ?? 0.002;
    const t = NOW - (n - i) * iv;
    const v = Array.isArray(opts.v) ? opts.v[i]! : (opts.v ?? 1000);
    return { t, T: t + iv - 1, o, h: Math.max(o, c) * (1 + spread), l: Math.min(o, c) * (1 - spread), c, v };
  });
}

export function candle(o: number, h: number, l: number, c: number, v = 100, t = 0): Candle {
  return { t, T: t + 3_599_999, o, h, l, c, v };
}

export function market(name: string, over: Partial<MarketCtx> = {}): MarketCtx {
  const mark = over.mark_price ?? 100;
  const oi = over.open_interest ?? 100_000;
  return {
    name,
    volume_24h: 20_000_000,
    funding_rate: 0.0000025,
    open_interest: oi,
    open_interest_usd: oi * mark,
    mark_price: mark,
    delisted: false,
    ...over,
  };
}

/** 1h candles of a steady climb with pullbacks, rising volume: a clean LONG setup. */
export function bullish(): AssetCandles {
  const c1h = Array.from({ length: 48 }, (_, i) => 100 + i * 0.2 + (i % 3 === 0 ? -0.5 : 0));
  const vol = Array.from({ length: 48 }, (_, i) => (i >= 44 ? 3000 : 1000));
  return {
    "1h": candlesFrom(c1h, { v: vol }),
    "4h": candlesFrom(
      Array.from({ length: 30 }, (_, i) => 90 + i * 0.4),
      { interval: 14_400_000 },
    ),
    "15m": candlesFrom(
      Array.from({ length: 48 }, (_, i) => 108 + i * 0.02 + (i % 3 === 0 ? -0.2 : 0)),
      { interval: 900_000, v: Array.from({ length: 48 }, (_, i) => (i >= 44 ? 3000 : 1000)) },
    ),
  };
}

import { UserError } from "../core/errors.ts";
import { doubleToDecimal } from "../market/decimal-double.ts";
import { readBooks, readCandleColumns, readFunding, readTrades } from "../market/index.ts";
import type { CandleInterval } from "../market/types.ts";
import { DEFAULT_MARKETS } from "../sim/venue/markets.ts";
import { INTERVAL_MS, isCandleColumns, type ReplayHistory } from "./market-history.ts";

/** Candles before `--from` read as warm-up, so the first snapshots already carry a candle window. */
const WARMUP_CANDLES = 30;

/** A coin's candles (as number columns), funding, and any recorded trades and books from the market-data store (DATA_DIR/market/…). */
export async function loadHistory(q: {
  root: string;
  network: string;
  coin: string;
  interval: CandleInterval;
  fromMs: number;
  toMs: number;
}): Promise<ReplayHistory> {
  const warmFrom = q.fromMs - WARMUP_CANDLES * INTERVAL_MS[q.interval];
  const base = { root: q.root, network: q.network, coin: q.coin };
  const range = { ...base, fromMs: q.fromMs, toMs: q.toMs };
  const [candles, funding, trades, books] = await Promise.all([
    readCandleColumns({ ...base, interval: q.interval, fromMs: warmFrom, toMs: q.toMs }),
    readFunding(range),
    readTrades(range),
    readBooks(range),
  ]);
  if (!candles.t.some((t) => t >= q.fromMs))
    throw new UserError(
      `no ${q.interval} candles for ${q.coin} on ${q.network} from ${new Date(q.fromMs).toISOString()} to ${new Date(q.toMs).toISOString()} under ${q.root}/market (fetch them with \`hl data fetch\`, or write the sim world's with \`hl sim export\`)`,
    );
  return { interval: q.interval, candles, funding, trades, books };
}

/**
 * The coin's size decimals: the sim world's (which match the exchange's for its markets), else the
 * most the recorded prices allow (a perp price carries at most 6 − szDecimals decimals).
 */
export function sizeDecimals(coin: string, history: ReplayHistory): number {
  const known = DEFAULT_MARKETS.find((m) => m.name === coin);
  if (known) return known.szDecimals;
  let most = 0;
  const decimals = (px: string) => {
    const dot = px.indexOf(".");
    if (dot >= 0) most = Math.max(most, px.length - dot - 1);
  };
  const candles = history.candles;
  if (isCandleColumns(candles)) {
    for (const column of [candles.o, candles.h, candles.l, candles.c])
      for (let i = 0; i < column.length && most < 6; i++) decimals(doubleToDecimal(column[i]!));
  } else {
    for (const c of candles) for (const px of [c.o, c.h, c.l, c.c]) decimals(px);
  }
  return Math.max(0, 6 - most);
}

import { readdirSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../../core/errors.ts";
import {
  candleDataset,
  datasetDir,
  joinCoin,
  readAssetCtxs,
  readCandles,
  readFunding,
  unescapePartition,
} from "../../market/index.ts";
import type { AssetCtxRow, CandleInterval, CandleRow, FundingRow } from "../../market/types.ts";

/** One coin of the recorded universe: its candles (warm-up included), funding and any asset contexts. */
export interface CoinHistory {
  coin: string;
  candles: readonly CandleRow[];
  funding: readonly FundingRow[];
  /** Recorded `activeAssetCtx` snapshots (open interest); empty where none were recorded. */
  assetCtxs: readonly AssetCtxRow[];
}

export interface UniverseHistory {
  interval: CandleInterval;
  coins: CoinHistory[];
}

/**
 * History read before `--from` so the scanner's first scan already sees its look-back: 50 four-hour
 * candles (its default 4h window) and the movers' two days fit in nine days.
 */
const WOLF_WARMUP_MS = 9 * 86_400_000;

/** The coins holding `interval` candles on `network` under `<root>/market`, sorted. */
function heldCoins(root: string, network: string, interval: CandleInterval): string[] {
  const base = datasetDir(root, network, candleDataset(interval));
  const coins: string[] = [];
  for (const dexDir of subdirs(base)) {
    if (!dexDir.startsWith("dex=")) continue;
    for (const coinDir of subdirs(join(base, dexDir))) {
      if (!coinDir.startsWith("coin=")) continue;
      coins.push(joinCoin(unescapePartition(dexDir.slice(4)), unescapePartition(coinDir.slice(5))));
    }
  }
  return coins.sort();
}

function subdirs(path: string): string[] {
  try {
    return readdirSync(path, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw err;
  }
}

/**
 * The universe WOLF is replayed over: every coin held (or the ones asked for) with candles in the
 * period, read from `fromMs − WOLF_WARMUP_MS` so the signals have their look-back from the start.
 */
export async function loadUniverse(q: {
  root: string;
  network: string;
  interval: CandleInterval;
  fromMs: number;
  toMs: number;
  coins?: readonly string[];
}): Promise<UniverseHistory> {
  const held = heldCoins(q.root, q.network, q.interval);
  const wanted = q.coins && q.coins.length > 0 ? q.coins : held;
  const missing = wanted.filter((c) => !held.includes(c));
  if (missing.length > 0)
    throw new UserError(
      `no ${q.interval} candles held for ${missing.join(", ")} on ${q.network} under ${q.root}/market (held: ${held.join(", ") || "none"})`,
    );
  const coins: CoinHistory[] = [];
  for (const coin of wanted) {
    const base = { root: q.root, network: q.network, coin };
    const [candles, funding, assetCtxs] = await Promise.all([
      readCandles({ ...base, interval: q.interval, fromMs: q.fromMs - WOLF_WARMUP_MS, toMs: q.toMs }),
      readFunding({ ...base, fromMs: q.fromMs - WOLF_WARMUP_MS, toMs: q.toMs }),
      readAssetCtxs({ ...base, fromMs: q.fromMs - WOLF_WARMUP_MS, toMs: q.toMs }),
    ]);
    if (candles.some((c) => c.t >= q.fromMs)) coins.push({ coin, candles, funding, assetCtxs });
  }
  if (coins.length === 0)
    throw new UserError(
      `no ${q.interval} candles on ${q.network} from ${new Date(q.fromMs).toISOString()} to ${new Date(q.toMs).toISOString()} under ${q.root}/market (fetch them with \`hl data fetch\`, or write the sim world's with \`hl sim export\`)`,
    );
  return { interval: q.interval, coins };
}

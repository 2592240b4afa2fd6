import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CandleRow, readCandles, writeCandles } from "../src/market/index.ts";
import type { BenchReporter } from "./harness.ts";

/** One year of 1m candles of one coin read back from the store (366 daily Parquet files). */
const MINUTES = 525_600;
const START = Date.UTC(2025, 0, 1);

function yearOfCandles(): CandleRow[] {
  const rows: CandleRow[] = new Array(MINUTES);
  let tick = 30_000; // price in 0.1 steps
  for (let i = 0; i < MINUTES; i++) {
    const t = START + i * 60_000;
    const open = tick;
    tick = Math.max(1_000, tick + ((i * 7_919) % 11) - 5);
    const px = (x: number) => `${Math.floor(x / 10)}.${x % 10}`;
    rows[i] = {
      t,
      T: t + 59_999,
      o: px(open),
      h: px(Math.max(open, tick) + 3),
      l: px(Math.min(open, tick) - 2),
      c: px(tick),
      v: `${i % 1_000}.${(i % 9_973) + 1}`,
      n: i % 50,
    };
  }
  return rows;
}

export default async function (r: BenchReporter): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), "market-bench-"));
  try {
    const target = { root, network: "bench", coin: "ETH", interval: "1m" as const };
    await writeCandles(target, yearOfCandles());
    const q = { ...target, fromMs: START, toMs: START + MINUTES * 60_000 };
    let best = Number.POSITIVE_INFINITY;
    for (let round = 0; round < 5; round++) {
      const t0 = performance.now();
      const rows = await readCandles(q);
      best = Math.min(best, performance.now() - t0);
      if (rows.length !== MINUTES) throw new Error(`read ${rows.length} candles, wrote ${MINUTES}`);
    }
    r.figure({
      name: "market: read 1y of 1m candles (best of 5)",
      value: best,
      unit: "ms",
      target: { op: "<", value: 1_000 },
    });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { marketDir, readCandles, readFunding } from "../../src/market/index.ts";
import { exportSimHistory } from "../../src/market/sim-export.ts";

const base = mkdtempSync(join(tmpdir(), "sim-export-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

const END = Date.UTC(2026, 2, 10);
const DAY = 86_400_000;

function filesOf(root: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else out.set(relative(root, p), readFileSync(p));
    }
  };
  walk(marketDir(root));
  return out;
}

describe("exportSimHistory", () => {
  const opts = { days: 2, coins: ["ETH", "yex:VXX"], seed: 7, endMs: END };

  it("writes closed 1m/5m/1h candles and settled funding of each coin under network paper", async () => {
    const root = join(base, "a");
    const result = await exportSimHistory({ ...opts, root });
    expect(result.network).toBe("paper");
    expect(result.coins).toEqual([
      { coin: "ETH", candles: { "1m": 2880, "5m": 576, "1h": 48 }, funding: 47 },
      { coin: "yex:VXX", candles: { "1m": 2880, "5m": 576, "1h": 48 }, funding: 47 },
    ]);
    const q = { root, network: "paper", coin: "yex:VXX", fromMs: END - 2 * DAY, toMs: END };
    const minutes = await readCandles({ ...q, interval: "1m" });
    expect(minutes[0]!.t).toBe(END - 2 * DAY);
    expect(minutes.at(-1)!.T).toBe(END - 1);
    const hours = await readCandles({ ...q, interval: "1h" });
    // An hour aggregates its minutes: open of the first, close of the last, extremes, summed trades.
    const first = minutes.slice(0, 60);
    expect(hours[0]!.o).toBe(first[0]!.o);
    expect(hours[0]!.c).toBe(first[59]!.c);
    expect(Math.max(...first.map((k) => Number(k.h)))).toBe(Number(hours[0]!.h));
    expect(first.reduce((n, k) => n + k.n, 0)).toBe(hours[0]!.n);
    const funding = await readFunding(q);
    expect(funding[0]!.t).toBe(END - 2 * DAY + 3_600_000);
    expect(funding.every((f) => /^-?\d+(\.\d+)?$/.test(f.rate))).toBe(true);
    expect(Object.keys(Object.fromEntries(filesOf(root))).sort()).toContain(
      "market/paper/candles_1m/dex=yex/coin=VXX/2026-03-09.parquet",
    );
  });

  it("is deterministic for a seed: the same files byte for byte; another seed differs", async () => {
    await exportSimHistory({ ...opts, root: join(base, "b") });
    await exportSimHistory({ ...opts, root: join(base, "c"), seed: 8 });
    const a = filesOf(join(base, "a"));
    const b = filesOf(join(base, "b"));
    const c = filesOf(join(base, "c"));
    expect([...b.keys()].sort()).toEqual([...a.keys()].sort());
    for (const [name, bytes] of a) expect(b.get(name)!.equals(bytes), name).toBe(true);
    const name = "market/paper/candles_1m/dex=main/coin=ETH/2026-03-09.parquet";
    expect(c.get(name)!.equals(a.get(name)!)).toBe(false);
  });

  it("refuses an unknown market and a bad day count", async () => {
    await expect(exportSimHistory({ ...opts, root: base, coins: ["NOPE"] })).rejects.toThrow(
      /unknown sim market "NOPE"/,
    );
    await expect(exportSimHistory({ ...opts, root: base, days: 0 })).rejects.toThrow(
      /days must be a positive integer/,
    );
  });
});

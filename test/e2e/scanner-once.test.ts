import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, expect, it } from "vitest";
import { type SimWorld, startSimWorld } from "../../src/sim/world.ts";

/**
 * `hl scanner once` with its default preset finds opportunities on a fresh sim world.
 * The sim's per-IP weight limit is off here: a full scan reads ~1,300 weight of candles, more than one
 * minute of the exchange's 1200, so with the limit on it takes over a minute by design. This test checks
 * what the scan finds; pacing under the limit is covered by test/exchange/budget.test.ts and `hl up`'s e2e.
 */

const run = promisify(execFile);
const HL = join(import.meta.dirname, "../../bin/hl.mjs");
const dir = mkdtempSync(join(tmpdir(), "scanner-once-"));
let sim: SimWorld | undefined;

afterAll(async () => {
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

it("scans every market and finds opportunities", { timeout: 60_000 }, async () => {
  sim = await startSimWorld({ seed: 2, ipWeightLimit: false });
  const { stdout } = await run("node", [HL, "scanner", "once", "--json"], {
    env: { ...process.env, DATA_DIR: dir, HL_NETWORK: "paper", HL_API_URL: sim.url, HL_PRIVATE_KEY: "" },
    timeout: 50_000,
  });
  const scan = JSON.parse(stdout) as {
    opportunities: { asset: string; final_score: number }[];
    stats: { assets_scanned: number; passed_stage1: number };
  };
  expect(scan.stats.assets_scanned).toBeGreaterThanOrEqual(30);
  expect(scan.stats.passed_stage1).toBeGreaterThanOrEqual(30);
  expect(scan.opportunities.length).toBeGreaterThan(0);
  for (const o of scan.opportunities) expect(o.final_score).toBeGreaterThanOrEqual(150);
});

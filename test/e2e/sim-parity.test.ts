import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

/** `hl sim parity` as a real process: the two runs and their difference, or one readable error line. */
const run = promisify(execFile);
const HL = join(import.meta.dirname, "../../bin/hl.mjs");

describe("hl sim parity", { timeout: 60_000 }, () => {
  it("prints the sim run, the dry run and their difference", async () => {
    const { stdout } = await run("node", [
      HL,
      "sim",
      "parity",
      "aggressive_taker",
      "--ticks",
      "20",
      "--seed",
      "4",
    ]);
    const report = JSON.parse(stdout);
    expect(report).toMatchObject({ strategy: "aggressive_taker", seed: 4, ticks: 20 });
    expect(report.sim.fills).toBeGreaterThan(0);
    expect(report.dryRun.fills).toBe(report.sim.fills);
    expect(report.difference).toMatchObject({ fills: 0, volume: "0" });
    expect(Math.abs(Number(report.difference.pnl))).toBeLessThan(0.01);
  });

  it("refuses an unknown strategy in one line with exit 1", async () => {
    const err = await run("node", [HL, "sim", "parity", "nope"]).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect(err).toMatchObject({ code: 1 });
    expect((err as { stderr: string }).stderr.trim().split("\n")).toEqual([
      'error: unknown strategy "nope"; list them with hl strategies',
    ]);
  });
});

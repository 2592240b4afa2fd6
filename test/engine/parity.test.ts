import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type ParityReport, runParity } from "../../src/engine/parity.ts";

/** The bounds of docs/paper-parity.md, per run of 250 ticks. */
const run = (strategy: string, seed: number): Promise<ParityReport> =>
  runParity({ strategy, seed, ticks: 250, dataDir: mkdtempSync(join(tmpdir(), "hl-parity-")) });

const n = (s: string) => Number(s);

describe("paper against the sim, measured", () => {
  it("a taker fills the same on paper as on the sim: same fills, volume and PnL, fees to the cent", async () => {
    const r = await run("aggressive_taker", 1);
    expect(r.sim.fills).toBeGreaterThan(50);
    expect(r.dryRun.fills).toBe(r.sim.fills);
    expect(r.dryRun.volume).toBe(r.sim.volume);
    expect(Math.abs(n(r.dryRun.fees) - n(r.sim.fees))).toBeLessThan(0.01);
    expect(Math.abs(n(r.dryRun.pnl) - n(r.sim.pnl))).toBeLessThan(0.01);
  }, 60_000);

  it("a referred taker pays on paper the fee the sim charges it (4 % off the base tier), to the micro-USDC", async () => {
    const r = await runParity({
      strategy: "aggressive_taker",
      seed: 1,
      ticks: 60,
      referred: true,
      dataDir: mkdtempSync(join(tmpdir(), "hl-parity-")),
    });
    expect(r.sim.fills).toBeGreaterThan(20);
    expect(r.dryRun.fills).toBe(r.sim.fills);
    expect(r.dryRun.volume).toBe(r.sim.volume);
    // The sim charged 0.045 % × 0.96 of the volume, each fee rounded to the micro-USDC.
    expect(Math.abs(n(r.sim.fees) - n(r.sim.volume) * 0.000432)).toBeLessThan(r.sim.fills * 1e-6);
    expect(r.paperFeeRates).toEqual({ taker: "0.000432", maker: "0.000144" });
    expect(r.dryRun.fees).toBe(r.sim.fees);
    expect(r.dryRun.pnl).toBe(r.sim.pnl);
  }, 60_000);

  it("market makers: volume and fees within 15 %, PnL within the fees paid, and paper not systematically better", async () => {
    const reports: ParityReport[] = [];
    for (const [strategy, seed] of [
      ["simple_mm", 1],
      ["simple_mm", 2],
      ["simple_mm", 3],
      ["avellaneda_mm", 1],
      ["avellaneda_mm", 2],
    ] as const)
      reports.push(await run(strategy, seed));
    let edge = 0;
    let fees = 0;
    for (const { strategy, seed, sim, dryRun } of reports) {
      const label = `${strategy} seed ${seed}: sim ${JSON.stringify(sim)} dry-run ${JSON.stringify(dryRun)}`;
      expect(sim.fills, label).toBeGreaterThan(20);
      expect(Math.abs(n(dryRun.volume) - n(sim.volume)) / n(sim.volume), label).toBeLessThan(0.15);
      expect(Math.abs(n(dryRun.fees) - n(sim.fees)) / n(sim.fees), label).toBeLessThan(0.15);
      expect(Math.abs(n(dryRun.pnl) - n(sim.pnl)), label).toBeLessThan(n(sim.fees));
      edge += n(dryRun.pnl) - n(sim.pnl);
      fees += n(sim.fees);
    }
    // Averaged over the runs, paper may not beat the sim by more than a quarter of the fees paid.
    expect(edge / reports.length).toBeLessThan((0.25 * fees) / reports.length);
  }, 120_000);

  it("a leveraged taker in a crashing market is liquidated on paper too, as on the sim", async () => {
    // $400 at 20×, a position building up to the margin it allows, the oracle moving 30 bps a second.
    const r = await runParity({
      strategy: "aggressive_taker",
      params: { size: 1, bias_amplitude: 0.49, bias_period: 40, max_position: 20 },
      seed: 3,
      ticks: 30,
      balanceUsd: "400",
      volatility: 0.003,
      dataDir: mkdtempSync(join(tmpdir(), "hl-parity-")),
    });
    const label = `sim ${JSON.stringify(r.sim)} dry-run ${JSON.stringify(r.dryRun)}`;
    expect(r.sim.liquidations, label).toBeGreaterThan(0);
    expect(r.dryRun.liquidations, label).toBeGreaterThan(0);
    // Liquidated within a read or two of each other (paper reads the mid as the mark): PnL close.
    expect(Math.abs(n(r.dryRun.pnl) - n(r.sim.pnl)), label).toBeLessThan(20);
  }, 60_000);
});

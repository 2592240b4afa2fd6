import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SimWorld, startSimWorld } from "../../src/sim/world.ts";

const HL = join(import.meta.dirname, "../../bin/hl.mjs");

describe("hl run --config with a dsl section, on the sim", () => {
  let world: SimWorld;
  beforeAll(async () => {
    world = await startSimWorld({ port: 0, seed: 11 });
  });
  afterAll(async () => {
    await world?.close();
  });

  it("a price drop breaches the stop: the position is closed reduce-only, journaled as the DSL's, and the run stops", {
    timeout: 30_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "run-dsl-"));
    const file = join(dir, "run.yaml");
    // Tick 1 buys 0.95 and sells 0.05 (bias +0.45): long 0.9 ETH, guarded from then on.
    writeFileSync(
      file,
      [
        "strategy: aggressive_taker",
        "instrument: ETH-PERP",
        "tick: 0.5",
        "params:",
        "  size: 1",
        "  bias_amplitude: 0.45",
        "  bias_period: 4",
        "dsl:",
        "  preset: moderate",
        "  phase1_max_breaches: 1",
        "",
      ].join("\n"),
    );
    const data = join(dir, "data");
    const child = spawn(process.execPath, [HL, "run", "--config", file, "--mock", "--max-ticks", "40"], {
      env: { ...process.env, DATA_DIR: data, HL_API_URL: world.url, HL_NETWORK: "paper", HL_PRIVATE_KEY: "" },
    });
    // Tick lines go to stdout. Once long, drop ETH 10 %: past the moderate preset's 3 % phase 1 retrace.
    let stdout = "";
    let moved = false;
    child.stdout.on("data", (b: Buffer) => {
      stdout += b.toString();
      const m = /T1 ETH mid=([\d.]+) \| pos=\+/.exec(stdout);
      if (m && !moved) {
        moved = true;
        world.setPrice("ETH", (Number(m[1]) * 0.9).toFixed(1));
      }
    });
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    expect(code, stdout).toBe(0);
    expect(moved).toBe(true);
    expect(stdout).toMatch(/DSL stop: Phase 1 close: 1\/1 breaches/);
    expect(stdout).toMatch(/stopped: dsl_stop/);
    expect(stdout).toMatch(/Position: 0 @/);
    const trades = readFileSync(join(data, "cli", "trades.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { side: string; quantity: string });
    expect(trades.at(-1)?.side).toBe("sell");
    expect(Number(trades.at(-1)?.quantity)).toBeCloseTo(0.9, 3);
    const journal = readFileSync(join(data, "journal", "entries.jsonl"), "utf8")
      .trim()
      .split("\n");
    expect(JSON.parse(journal.at(-1)!)).toMatchObject({
      close_reason: expect.stringMatching(/^dsl_stop: Phase 1 close/),
      direction: "long",
    });
  });
});

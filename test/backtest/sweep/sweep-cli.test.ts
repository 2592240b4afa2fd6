import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command } from "commander";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { register } from "../../../src/cli/backtest.ts";
import { UserError } from "../../../src/core/errors.ts";
import { writeSimStore } from "../write-sim-store.ts";

const END = Date.UTC(2026, 2, 3, 0, 0);
const HOUR = 3_600_000;

describe("hl backtest --sweep / --walk-forward (CLI)", () => {
  let root: string;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "hl-sweep-cli-"));
    await writeSimStore(root, { endMs: END, days: 1, network: "paper" });
  });

  async function hl(...args: string[]): Promise<string> {
    const program = new Command("hl").exitOverride();
    register(program);
    const out: string[] = [];
    const spy = vi.spyOn(process.stdout, "write").mockImplementation((s) => {
      out.push(String(s));
      return true;
    });
    try {
      await program.parseAsync(["node", "hl", "backtest", ...args, "--data-dir", root, "--network", "paper"]);
    } finally {
      spy.mockRestore();
    }
    return out.join("");
  }
  const period = ["--from", new Date(END - 6 * HOUR).toISOString(), "--to", new Date(END).toISOString()];

  it("ranks the grid and prints it, as a table or as JSON", async () => {
    const args = [
      "mean_reversion",
      ...period,
      "-p",
      "size=0.5",
      "--sweep",
      "threshold_bps=2..6:2",
      "--metric",
      "return_pct",
      "--workers",
      "0",
    ];
    const json = JSON.parse(await hl(...args, "--json")) as {
      metric: string;
      runs: { rank: number; params: object; score: number }[];
    };
    expect(json.metric).toBe("return_pct");
    expect(json.runs.map((r) => r.params)).toHaveLength(3);
    expect(json.runs.map((r) => r.rank)).toEqual([1, 2, 3]);
    const table = await hl(...args);
    expect(table).toMatch(/^Sweep: 3 runs ranked by return_pct\n#1 {2}threshold_bps=\d/);
    expect(table).toContain(
      `#1  threshold_bps=${(json.runs[0]!.params as { threshold_bps: number }).threshold_bps}  return_pct=${json.runs[0]!.score}`,
    );
  }, 30_000);

  it("walk-forward prints each fold's winner and its out-of-sample figures", async () => {
    const out = await hl(
      "mean_reversion",
      ...period,
      "--sweep",
      "threshold_bps=2,6",
      "--metric",
      "return_pct",
      "--workers",
      "0",
      "--walk-forward",
      "--folds",
      "2",
    );
    expect(out).toMatch(/^Walk-forward: 2 folds/);
    expect(out.match(/^fold \d/gm)).toEqual(["fold 1", "fold 2"]);
    expect(out).toMatch(/Out of sample: pnl=-?[\d.]+/);
  }, 30_000);

  it("refuses bad sweeps with one readable line", async () => {
    for (const [args, msg] of [
      [["--walk-forward"], /--walk-forward needs at least one --sweep/],
      [["--queue", "postgres://127.0.0.1:1/none"], /--queue shares a sweep/],
      [["--sweep", "threshold_bps=2,6", "--queue", "redis://queue"], /--queue must be a postgres/],
      [["--sweep", "threshold_bps=6..2:2"], /below/],
      [["--sweep", "threshold_bps=2..6:2", "--metric", "luck"], /--metric must be one of/],
      [["--sweep", "threshold_bps=2..6:2", "-p", "threshold_bps=3"], /both swept and fixed/],
      [["--sweep", "nope=1..2:1", "--workers", "0"], /mean_reversion has no param nope/],
    ] as const) {
      const run = hl("mean_reversion", ...period, ...args);
      await expect(run, args.join(" ")).rejects.toBeInstanceOf(UserError);
      await expect(hl("mean_reversion", ...period, ...args)).rejects.toThrow(msg);
    }
  }, 30_000);
});

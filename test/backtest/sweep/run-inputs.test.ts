import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command } from "commander";
import { beforeAll, describe, expect, it, vi } from "vitest";
import type { BacktestOptions } from "../../../src/backtest/run-backtest.ts";
import { loadSweepBase } from "../../../src/backtest/sweep/sweep-base.ts";
import { jobInputs, type SweepCommandOptions } from "../../../src/backtest/sweep/sweep-command.ts";
import { register } from "../../../src/cli/backtest.ts";
import { writeSimStore } from "../write-sim-store.ts";

// Every runBacktest call, as given: what each path (one run, the lookahead check, a sweep's run) really ran.
const seen = vi.hoisted(() => ({ calls: [] as BacktestOptions[] }));
vi.mock("../../../src/backtest/run-backtest.ts", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../../../src/backtest/run-backtest.ts")>();
  return {
    ...actual,
    runBacktest: (o: BacktestOptions) => {
      seen.calls.push(o);
      return actual.runBacktest(o);
    },
  };
});

const END = Date.UTC(2026, 2, 3, 0, 0);
const HOUR = 3_600_000;
const FROM = new Date(END - 4 * HOUR).toISOString();
const TO = new Date(END).toISOString();

/** Every run option of `hl backtest`, each away from its default, and the value the run must be given. */
const OPTIONS: { flag: string[]; key: keyof BacktestOptions; value: unknown }[] = [
  { flag: ["-p", "size=0.3"], key: "params", value: { size: 0.3, threshold_bps: 4 } },
  { flag: ["--risk", "capital_usd=7000"], key: "risk", value: { capital_usd: 7000 } },
  { flag: ["--fee-tier", "2"], key: "feeTier", value: 2 },
  { flag: ["--maker-fee", "0.0002"], key: "makerFee", value: "0.0002" },
  { flag: ["--taker-fee", "0.002"], key: "takerFee", value: "0.002" },
  { flag: ["--latency-ms", "250"], key: "latencyMs", value: 250 },
  { flag: ["--slippage-bps", "0"], key: "slippageBps", value: 0 },
  { flag: ["--participation-pct", "5"], key: "participation", value: 0.05 },
  { flag: ["--strict"], key: "strict", value: true },
];
/** What only a single run has (its own period, progress and notices) or a sweep sets per point. */
const PER_RUN: ReadonlySet<string> = new Set(["fromMs", "toMs", "log", "onProgress", "signal", "onPlace"]);

let root: string;
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "hl-run-inputs-"));
  await writeSimStore(root, { endMs: END, days: 1, network: "paper" });
});

async function hl(...args: string[]): Promise<{ out: string; calls: BacktestOptions[] }> {
  seen.calls = [];
  const program = new Command("hl").exitOverride();
  register(program);
  const out: string[] = [];
  const write = vi.spyOn(process.stdout, "write").mockImplementation((s) => {
    out.push(String(s));
    return true;
  });
  const notices = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
  try {
    await program.parseAsync([
      "node",
      "hl",
      "backtest",
      "mean_reversion",
      "--from",
      FROM,
      "--to",
      TO,
      ...args,
      "--data-dir",
      root,
      "--network",
      "paper",
      "--report",
      join(root, "report.html"),
    ]);
  } finally {
    write.mockRestore();
    notices.mockRestore();
  }
  return { out: out.join(""), calls: seen.calls };
}

/** The options a run was given that every run of the same inputs shares. */
function shared(o: BacktestOptions): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([k]) => !PER_RUN.has(k)));
}

const sweep = ["--sweep", "threshold_bps=4", "--workers", "0", "--metric", "pnl_usd", "--json"];

describe("every option of a single run reaches the sweep's runs", () => {
  it("one run, the lookahead check and each sweep run are given the same settings, every option away from its default", async () => {
    const flags = OPTIONS.flatMap((o) => o.flag);
    const single = await hl(...flags, "-p", "threshold_bps=4", "--json");
    expect(single.calls).toHaveLength(1);
    const run = single.calls[0]!;
    for (const o of OPTIONS) expect(run[o.key], o.flag.join(" ")).toEqual(o.value);

    const swept = await hl(...flags, ...sweep);
    expect(swept.calls).toHaveLength(1);
    const point = swept.calls[0]!;
    expect(shared(point)).toEqual(shared(run));
    expect(point.fromMs).toBe(run.fromMs);
    expect(point.toMs).toBe(run.toMs);

    const walk = await hl(...flags, ...sweep, "--walk-forward", "--folds", "1");
    for (const c of walk.calls) expect(shared(c)).toEqual(shared(run));

    const lookahead = await hl(...flags, "-p", "threshold_bps=4", "--lookahead-check", "1", "--json");
    expect(lookahead.calls.length).toBeGreaterThanOrEqual(1);
    const { history: _h, ...settings } = shared(run);
    for (const c of lookahead.calls) expect(shared(c)).toMatchObject(settings);
  }, 30_000);

  it("a queue worker loads the same settings from the job's inputs as the submitter", async () => {
    const o: SweepCommandOptions = {
      strategy: "mean_reversion",
      instrument: "eth",
      from: FROM,
      to: TO,
      params: { size: 0.3 },
      risk: { capital_usd: 7000 },
      feeTier: 2,
      makerFee: "0.0002",
      takerFee: "0.002",
      latencyMs: 250,
      slippageBps: 0,
      participation: 0.05,
      strict: true,
      interval: "1m",
      network: "paper",
      dataDir: root,
      sweeps: ["threshold_bps=4"],
      metric: "pnl_usd",
      workers: 0,
      queue: "postgres://unused",
    };
    const submitter = await loadSweepBase(o);
    // The job travels as JSON; the worker reads the history from its own data directory.
    const job = JSON.parse(JSON.stringify(jobInputs(o))) as ReturnType<typeof jobInputs>;
    const worker = await loadSweepBase({ ...job, dataDir: root });
    expect(worker).toEqual(submitter);
    for (const k of [
      "makerFee",
      "takerFee",
      "participation",
      "strict",
      "latencyMs",
      "slippageBps",
      "feeTier",
    ])
      expect(worker.base, k).toHaveProperty(k);
  });
});

describe("a sweep's figures follow its costs", () => {
  it("--taker-fee changes a sweep run's fees and PnL, and each run's figures are the single run's", async () => {
    const costs = ["--slippage-bps", "0", "-p", "size=0.3"];
    type Ranked = { runs: { figures: Record<string, unknown> }[] };
    const figures = async (...more: string[]) =>
      (JSON.parse((await hl(...costs, ...more, ...sweep)).out) as Ranked).runs[0]!.figures;
    const plain = await figures();
    const dear = await figures("--taker-fee", "0.005");
    expect(Number(plain.fills)).toBeGreaterThan(0);
    expect(dear.taker_fee_rate).toBe("0.005");
    expect(Number(dear.fees_usd)).toBeGreaterThan(Number(plain.fees_usd));
    expect(Number(dear.pnl_usd)).toBeLessThan(Number(plain.pnl_usd));

    const single = JSON.parse(
      (await hl(...costs, "--taker-fee", "0.005", "-p", "threshold_bps=4", "--json")).out,
    ) as Record<string, unknown>;
    const { trades: _t, report: _r, ...summary } = single;
    expect(dear).toEqual(summary);
  }, 30_000);
});

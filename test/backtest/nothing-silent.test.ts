import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backtestCommand } from "../../src/backtest/backtest-command.ts";
import { renderReportHtml } from "../../src/backtest/report-html.ts";
import { runBacktest } from "../../src/backtest/run-backtest.ts";
import type { CandleRow } from "../../src/market/types.ts";
import { meanReversionRuns, simEthHistory } from "../support/sim-backtest.ts";
import { writeSimStore } from "./write-sim-store.ts";

/** A run that trades less than it was asked to says so: risk stops, halts, gaps, short data, thin statistics, refusals. */

const END = Date.UTC(2026, 2, 3);
const HOUR = 3_600_000;
const MIN = 60_000;
const history = simEthHistory(END, 1);
const run = meanReversionRuns(history, END - 12 * HOUR, END);

describe("a run that trades less than asked says so", () => {
  it("reduce-only: the tick and time it started, how long it lasted, and a warning", async () => {
    const { summary } = await run({ risk: { max_drawdown_usd: 2, hard_stop_mult: 1000 } });
    expect(summary.risk.reduce_only_tick).toBeGreaterThan(0);
    expect(Date.parse(summary.risk.reduce_only_from!)).toBeGreaterThanOrEqual(END - 12 * HOUR);
    expect(summary.risk.reduce_only_ticks).toBeGreaterThan(0);
    expect(summary.warnings.some((w) => /reduce-only from .* \(tick \d+\)/.test(w))).toBe(true);
  });

  it("halt: the reason, the real range replayed, and the position left open", async () => {
    const { summary, venue } = await run({ risk: { max_drawdown_usd: 2, hard_stop_mult: 1.5 } });
    expect(summary.stop_reason).toBe("halted");
    expect(summary.risk.halt_reason).toMatch(/hard drawdown/);
    expect(summary.risk.halt_tick).toBeGreaterThan(0);
    expect(summary.requested_to).toBe(new Date(END).toISOString());
    expect(Date.parse(summary.to)).toBeLessThan(END);
    expect(summary.warnings.some((w) => /halted at .*hard drawdown/.test(w))).toBe(true);
    // The report says it too, above the figures.
    const html = renderReportHtml(summary, venue.tape, "");
    expect(html).toContain('<div class="warn">');
    expect(html).toContain(`asked ${summary.requested_from} → ${summary.requested_to}`);
    if (summary.open_position) {
      expect(summary.open_position.qty).not.toBe("0");
      expect(summary.warnings.some((w) => /position .* left open/.test(w))).toBe(true);
    }
  });

  it("Sharpe and Sortino need 30 daily returns: n/a with the count", async () => {
    const { summary } = await run();
    expect(summary.sharpe).toBeNull();
    expect(summary.sortino).toBeNull();
    expect(summary.daily_returns).toBe(1);
    expect(summary.warnings.some((w) => /Sharpe and Sortino n\/a: 1 daily return/.test(w))).toBe(true);
  });

  it("an order refused by max_order_size is counted and its notice kept", async () => {
    const notices: string[] = [];
    const { summary } = await run({ risk: { max_order_size: 0.1 }, log: (l) => notices.push(l) });
    expect(summary.fills).toBe(0);
    expect(summary.orders_rejected).toBeGreaterThan(0);
    expect(notices.some((l) => /max_order_size/.test(l))).toBe(true);
  });
});

describe("data gaps", () => {
  // Two hours missing in the middle of the run, with a funding row inside them.
  const cut = (rows: CandleRow[]) => rows.filter((c) => c.t < END - 8 * HOUR || c.t >= END - 6 * HOUR);
  const gapped = { ...history, candles: cut(history.candles) };

  it("are listed (dataset, from, to) and warned; --strict makes them an error", async () => {
    const { summary } = await run({ history: gapped });
    expect(summary.data_gaps).toEqual([
      {
        dataset: "candles 1m",
        from: new Date(END - 8 * HOUR).toISOString(),
        to: new Date(END - 6 * HOUR).toISOString(),
      },
    ]);
    expect(summary.warnings.some((w) => w.startsWith("data gap: candles 1m"))).toBe(true);
    await expect(run({ history: gapped, strict: true })).rejects.toThrow(/data gap: candles 1m from/);
  });

  it("funding settled inside a gap is charged at the first candle after it", async () => {
    const funding = [{ t: END - 7 * HOUR, rate: "0.001", premium: "0" }];
    // A long opened before the gap and held through it (one resting buy far below, filled on the first candle).
    const bars = gapped.candles.filter((c) => c.t >= END - 9 * HOUR);
    const flat = bars.map((c) => ({ ...c, o: "100", h: "100", l: "100", c: "100", v: "1000" }));
    flat[1] = { ...flat[1]!, l: "98" };
    const { summary, ledger } = await runBacktest({
      strategy: "simple_mm",
      instrument: "ETH-PERP",
      params: { spread_bps: 100, base_size: 1 },
      fromMs: END - 9 * HOUR,
      toMs: END,
      history: { interval: "1m", candles: flat, funding },
      szDecimals: 4,
    });
    expect(summary.data_gaps.filter((g) => g.dataset === "candles 1m")).toHaveLength(1);
    expect(ledger.qty.isZero()).toBe(false);
    expect(ledger.funding.isZero()).toBe(false);
  });

  it("--to beyond the data is warned, with where the data ends", async () => {
    const { summary } = await run({ toMs: END + 5 * HOUR });
    expect(summary.requested_to).toBe(new Date(END + 5 * HOUR).toISOString());
    expect(summary.to).toBe(new Date(END).toISOString());
    expect(summary.warnings).toContain(
      `data ends at ${new Date(END).toISOString()}, before --to ${new Date(END + 5 * HOUR).toISOString()}`,
    );
  });
});

describe("unreadable data", () => {
  let root = "";
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "bt-corrupt-"));
    await writeSimStore(root, { endMs: END, days: 1 });
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("a corrupt Parquet file is named", async () => {
    const market = join(root, "market");
    const file = readdirSync(market, { recursive: true, encoding: "utf8" }).find(
      (f) => f.includes("1m") && f.endsWith(".parquet"),
    )!;
    writeFileSync(join(market, file), "not parquet at all");
    await expect(
      backtestCommand({
        strategy: "mean_reversion",
        instrument: "ETH-PERP",
        from: new Date(END - 2 * HOUR).toISOString(),
        to: new Date(END - MIN).toISOString(),
        params: {},
        risk: {},
        feeTier: 0,
        latencyMs: 0,
        slippageBps: 0,
        interval: "1m",
        network: "paper",
        dataDir: root,
      }),
    ).rejects.toThrow(file);
  });
});

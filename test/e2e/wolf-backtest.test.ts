import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WolfBacktestSummary } from "../../src/backtest/wolf/wolf-summary.ts";
import { D } from "../../src/core/decimal.ts";
import { type HlOutcome, runHl } from "../support/hl-process.ts";

/** `hl sim export` (four coins) → `hl wolf backtest` → figures and report, as real processes. */

let dir = "";

function hl(...args: string[]): Promise<HlOutcome> {
  return runHl(args, { ...process.env, DATA_DIR: dir, HL_NETWORK: "", WOLF_PRESET: "" }, 60_000);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "wolf-bt-e2e-"));
  const r = await hl("sim", "export", "--days", "2", "--coins", "BTC,ETH,SOL,HYPE", "--to", "2026-01-31");
  expect(r.code, r.stderr).toBe(0);
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("hl wolf backtest on `hl sim export` data", () => {
  it("trades the universe with the real signals and stops, byte-identical twice, with the HTML report", {
    timeout: 60_000,
  }, async () => {
    const config = join(dir, "wolf.json");
    writeFileSync(config, JSON.stringify({ wolf: { daily_loss_limit: 1000 } }));
    const args = [
      "wolf",
      "backtest",
      "--from",
      "2026-01-30T18:00:00Z",
      "--to",
      "2026-01-31",
      "--config",
      config,
      "--fee-tier",
      "2",
      "--latency-ms",
      "200",
      "--participation-pct",
      "5",
      "--json",
    ];
    const [a, b] = await Promise.all([hl(...args), hl(...args)]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.stdout).toBe(a.stdout);
    const s = JSON.parse(a.stdout) as WolfBacktestSummary & { report: string };
    expect(s).toMatchObject({
      strategy: "wolf",
      preset: "default",
      coins: ["BTC", "ETH", "HYPE", "SOL"],
      candles: 360,
      ticks: 360,
      fee_tier: 2,
      taker_fee_rate: "0.00035",
      latency_ms: 200,
      participation_pct: 5,
      capital_usd: "10000",
    });
    expect(s.config.daily_loss_limit).toBe(1000);
    // WOLF traded: every fill is an entry or an exit, one entry per round trip, one exit per closed one.
    expect(s.trades.length).toBeGreaterThan(0);
    const entries = Object.values(s.entries_by_source).reduce((x, y) => x + y, 0);
    const exits = Object.values(s.exits_by_reason).reduce((x, y) => x + y, 0);
    const closed = s.trades.filter((t) => t.closed_ms !== null);
    expect(entries).toBe(s.trades.length);
    expect(exits).toBe(closed.length);
    expect(s.fills).toBe(entries + exits);
    expect(Object.keys(s.exits_by_reason).length).toBeGreaterThan(0);
    for (const t of s.trades) expect(s.coins).toContain(t.coin);
    // The money adds up: the round trips' net PnL is the account's PnL, fees are charged.
    const sum = s.trades.reduce((x, t) => x.plus(t.net_pnl), new D(0));
    expect(sum.minus(s.pnl_usd).abs().lt("0.000001")).toBe(true);
    expect(Number(s.fees_usd)).toBeGreaterThan(0);
    expect(s.max_drawdown_pct).toBeGreaterThanOrEqual(0);
    expect(s.exposure_pct).toBeGreaterThan(0);
    expect(s.report).toBe(
      join(dir, "backtests", "wolf_default_1m_2026-01-30T180000Z_2026-01-31T000000Z.html"),
    );
    const html = readFileSync(s.report, "utf8");
    expect(html).toContain("createChart");
    expect(html).toContain("BTC price and its trades");
    expect(html).toContain("<th>coin</th>");
    expect(html).not.toMatch(/<script src=/);
  });
});

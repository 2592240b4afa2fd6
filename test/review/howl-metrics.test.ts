import { describe, expect, it } from "vitest";
import { computeHowlMetrics, exitType } from "../../src/review/howl-metrics.ts";
import { distillHowl } from "../../src/review/howl-report.ts";
import { type Line, pair, trip } from "./helpers.ts";

function metrics(lines: Line[]) {
  const { trades, roundTrips, open } = pair(lines);
  return computeHowlMetrics(trades, roundTrips, open);
}

describe("the HOWL line with nothing closed yet", () => {
  it("says no round trips rather than a 0 % win rate (no trade has been won or lost)", () => {
    const line = distillHowl(metrics([]), []).split("\n")[0];
    expect(line).toBe("HOWL: 0 round trips, WR n/a, net $+0.00");
  });
});

describe("computeHowlMetrics", () => {
  it("empty input gives zeros and null ratios", () => {
    const m = metrics([]);
    expect(m.total_trades).toBe(0);
    expect(m.total_round_trips).toBe(0);
    expect(m.win_rate).toBe(0);
    expect(m.net_pnl).toBe(0);
    expect(m.fdr).toBeNull();
    expect(m.gross_profit_factor).toBeNull();
    expect(m.monster_dependency_pct).toBeNull();
  });

  it("one 100 → 110 long with 0.5 + 0.5 fees", () => {
    const m = metrics(trip({ entry: 100, exit: 110, fee: 0.5 }));
    expect(m).toMatchObject({
      total_trades: 2,
      total_round_trips: 1,
      win_count: 1,
      loss_count: 0,
      win_rate: 100,
      gross_pnl: 10,
      total_fees: 1,
      net_pnl: 9,
    });
  });

  it("FDR = fees / gross wins × 100 (2.5 + 2.5 on a gross win of 10 → 50)", () => {
    expect(metrics(trip({ entry: 100, exit: 110, fee: 2.5 })).fdr).toBe(50);
  });

  it("FDR is null, not 0, when fees were paid but nothing won gross", () => {
    const m = metrics(trip({ entry: 100, exit: 90, fee: 1 }));
    expect(m.fdr).toBeNull();
    expect(m.total_fees).toBe(2);
  });

  it("profit factors: wins ÷ |losses|, null when there is no losing side", () => {
    const m = metrics([
      ...trip({ entry: 100, exit: 130, t: 1 }),
      ...trip({ entry: 100, exit: 90, t: 200_000 }),
    ]);
    expect(m.gross_profit_factor).toBe(3);
    expect(m.net_profit_factor).toBe(3);
    expect(metrics(trip({ entry: 100, exit: 110 })).gross_profit_factor).toBeNull();
  });

  it("break-even is neither a win nor a loss", () => {
    const m = metrics(trip({ entry: 100, exit: 100 }));
    expect([m.win_count, m.loss_count, m.breakeven_count]).toEqual([0, 0, 1]);
  });

  it("splits by direction", () => {
    const m = metrics([
      ...trip({ entry: 100, exit: 110, t: 1 }),
      ...trip({ entry: 100, exit: 90, t: 100_000, direction: "short" }),
    ]);
    expect(m.long).toEqual({ count: 1, wins: 1, win_rate: 100, net_pnl: 10 });
    expect(m.short).toEqual({ count: 1, wins: 1, win_rate: 100, net_pnl: 10 });
  });

  it("buckets holding times (boundaries exclusive) and averages them", () => {
    const holds = [30_000, 299_999, 300_000, 900_000, 3_600_000, 14_400_000];
    const m = metrics(holds.flatMap((hold, i) => trip({ entry: 1, exit: 2, hold, t: i * 100_000_000 })));
    expect(m.holding_buckets).toEqual({ "<5m": 2, "5-15m": 1, "15-60m": 1, "1-4h": 1, "4h+": 1 });
    expect(m.avg_holding_ms).toBe(Math.round(holds.reduce((a, b) => a + b) / holds.length));
  });

  it("counts streaks in entry order: W W L → 2 and 1", () => {
    const m = metrics([
      ...trip({ entry: 1, exit: 2, t: 1 }),
      ...trip({ entry: 1, exit: 2, t: 100_000 }),
      ...trip({ entry: 2, exit: 1, t: 200_000 }),
    ]);
    expect([m.max_consecutive_wins, m.max_consecutive_losses]).toEqual([2, 1]);
  });

  it("monster dependency: best / net × 100 when net > 0 (+50 and −5 → 111%)", () => {
    const m = metrics([
      ...trip({ entry: 100, exit: 150, t: 1 }),
      ...trip({ entry: 100, exit: 95, t: 100_000 }),
    ]);
    expect(m.best_trade_pnl).toBe(50);
    expect(m.worst_trade_pnl).toBe(-5);
    expect(m.monster_dependency_pct).toBeCloseTo(111.1111, 3);
  });

  it("monster dependency is null when net PnL is not positive", () => {
    const m = metrics([
      ...trip({ entry: 100, exit: 110, t: 1 }),
      ...trip({ entry: 100, exit: 80, t: 100_000 }),
    ]);
    expect(m.net_pnl).toBe(-10);
    expect(m.monster_dependency_pct).toBeNull();
  });

  it("per-strategy and per-instrument stats", () => {
    const m = metrics([
      ...trip({ entry: 1, exit: 2, strategy: "alpha", instrument: "ETH-PERP", t: 1 }),
      ...trip({ entry: 2, exit: 1, strategy: "beta", instrument: "BTC-PERP", t: 100_000 }),
    ]);
    expect(m.strategy_stats.alpha!.win_rate).toBe(100);
    expect(m.strategy_stats.beta!.win_rate).toBe(0);
    expect(m.instrument_stats["BTC-PERP"]).toMatchObject({ count: 1, losses: 1, net_pnl: -1 });
    expect(m.instrument_stats["ETH-PERP"]).toMatchObject({ count: 1, wins: 1, net_pnl: 1 });
  });

  it("exit types group reasons without their details", () => {
    expect(exitType("dsl_close: phase 2 floor")).toBe("dsl_close");
    expect(exitType("hard_stop: ROE -5.2%")).toBe("hard_stop");
    expect(exitType("")).toBe("strategy");
    const m = metrics([
      ...trip({ entry: 1, exit: 2, t: 1, exitMeta: "dsl_close: a" }),
      ...trip({ entry: 1, exit: 2, t: 100_000, exitMeta: "dsl_close: b" }),
    ]);
    expect(m.exit_type_counts).toEqual({ dsl_close: 2 });
  });

  it("reports fees of still-open positions separately from closed PnL", () => {
    const m = metrics([
      { side: "buy", price: 100, quantity: 2, fee: 1, timestamp_ms: 1 },
      { side: "sell", price: 110, quantity: 1, fee: 0.5, timestamp_ms: 2 },
    ]);
    expect(m.total_fees).toBe(1);
    expect(m.open_fees).toBe(0.5);
    expect(m.open_lots).toBe(1);
    expect(m.net_pnl).toBe(9);
  });

  it("money stays exact: 0.1 + 0.2 style fees sum to 0.3", () => {
    const m = metrics([
      { side: "buy", price: "0.1", quantity: 1, fee: "0.1", timestamp_ms: 1 },
      { side: "sell", price: "0.3", quantity: 1, fee: "0.2", timestamp_ms: 2 },
    ]);
    expect(m.total_fees).toBe(0.3);
    expect(m.gross_pnl).toBe(0.2);
    expect(m.net_pnl).toBe(-0.1);
  });
});

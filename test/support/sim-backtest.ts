import { type BacktestOptions, runBacktest } from "../../src/backtest/run-backtest.ts";
import { simHistory } from "../backtest/sim-history.ts";

/** The sim model's ETH 1 m candles and funding over `days` up to `endMs` (szDecimals 4, ending at 3400). */
export function simEthHistory(endMs: number, days: number) {
  return simHistory({ coin: "ETH", szDecimals: 4, endPx: 3400, endMs, days });
}

/**
 * Backtests of mean_reversion tuned to trade the sim's ETH (no slippage, so its IOCs at the touch
 * fill) over [fromMs, endMs) of `history`; `over` changes any option of a run.
 */
export function meanReversionRuns(history: BacktestOptions["history"], fromMs: number, endMs: number) {
  return (over: Partial<BacktestOptions> = {}) =>
    runBacktest({
      strategy: "mean_reversion",
      instrument: "ETH-PERP",
      params: { window: 10, threshold_bps: 4, size: 0.5, max_position: 1.5 },
      fromMs,
      toMs: endMs,
      history,
      szDecimals: 4,
      slippageBps: 0,
      ...over,
    });
}

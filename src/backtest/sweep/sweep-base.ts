import { type BacktestInputs, loadInputs } from "../backtest-command.ts";
import type { SweepBase } from "./sweep-job.ts";

/** Read the period's history once and build what every run of a sweep shares. */
export async function loadSweepBase(
  o: BacktestInputs,
): Promise<{ base: SweepBase; fromMs: number; toMs: number }> {
  const { instrument, fromMs, toMs, history, szDecimals } = await loadInputs(o);
  const base: SweepBase = {
    strategy: o.strategy,
    instrument,
    params: o.params,
    risk: o.risk,
    feeTier: o.feeTier,
    latencyMs: o.latencyMs,
    slippageBps: o.slippageBps,
    ...(o.participation !== undefined ? { participation: o.participation } : {}),
    szDecimals,
    history,
  };
  return { base, fromMs, toMs };
}

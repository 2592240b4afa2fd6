import { loadInputs } from "../backtest-command.ts";
import { type BacktestInputs, runInputs } from "../run-inputs.ts";
import type { SweepBase } from "./sweep-job.ts";

/** Read the period's history once and build what every run of a sweep shares: the single run's settings. */
export async function loadSweepBase(
  o: BacktestInputs,
): Promise<{ base: SweepBase; fromMs: number; toMs: number }> {
  const loaded = await loadInputs(o);
  return { base: runInputs(o, loaded), fromMs: loaded.fromMs, toMs: loaded.toMs };
}

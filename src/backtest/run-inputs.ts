import type { ReplayHistory } from "./market-history.ts";
import type { BacktestOptions } from "./run-backtest.ts";

/** What every backtest run reads: the strategy, the market, the period and the venue's costs. */
export interface BacktestInputs {
  strategy: string;
  instrument: string;
  from: string;
  to: string;
  params: Record<string, number>;
  risk: Record<string, number>;
  feeTier: number;
  /** Fee rates of one's own in place of the tier's (fractions of notional). */
  makerFee?: string;
  takerFee?: string;
  latencyMs: number;
  slippageBps: number;
  /** Our fills in a candle are at most this share of its volume, 0–1 (default 0.1). */
  participation?: number;
  /** Data gaps are an error instead of a warning. */
  strict?: boolean;
  interval: string;
  network: string;
  dataDir: string;
}

/**
 * What runBacktest is given for every run of these inputs, whatever the path (one run, the lookahead
 * check, each run of a sweep here or on a queue worker): built in one place so that none drops an option.
 */
export type RunInputs = Pick<
  BacktestOptions,
  | "strategy"
  | "instrument"
  | "params"
  | "risk"
  | "feeTier"
  | "makerFee"
  | "takerFee"
  | "latencyMs"
  | "slippageBps"
  | "participation"
  | "strict"
  | "history"
  | "szDecimals"
>;

/** The run's settings from the inputs and what loadInputs read for them. */
export function runInputs(
  o: BacktestInputs,
  loaded: { instrument: string; history: ReplayHistory; szDecimals: number },
): RunInputs {
  return {
    strategy: o.strategy,
    instrument: loaded.instrument,
    params: o.params,
    risk: o.risk,
    feeTier: o.feeTier,
    ...(o.makerFee !== undefined ? { makerFee: o.makerFee } : {}),
    ...(o.takerFee !== undefined ? { takerFee: o.takerFee } : {}),
    latencyMs: o.latencyMs,
    slippageBps: o.slippageBps,
    ...(o.participation !== undefined ? { participation: o.participation } : {}),
    ...(o.strict ? { strict: true } : {}),
    history: loaded.history,
    szDecimals: loaded.szDecimals,
  };
}

import { z } from "zod";
import { backtestCommand, formatSummary } from "../../../backtest/backtest-command.ts";
import { DEFAULT_PARTICIPATION } from "../../../backtest/candle-fill-model.ts";
import { resolveNetwork } from "../../../config/env.ts";
import { UserError } from "../../../core/errors.ts";
import { defineTool, TextAndData, ToolError } from "../tool.ts";

/** Progress is reported at most this many times per run (a year of minutes is half a million ticks). */
const PROGRESS_STEPS = 100;

export const backtest = defineTool({
  name: "backtest",
  title: "Backtest a strategy",
  group: "action",
  description:
    "Run a strategy through the trading engine on recorded candles from the market-data store (hl data fetch, " +
    "hl sim export) and return the report's figures: PnL, return, Sharpe, Sortino, max drawdown, win rate, " +
    "profit factor, exposure, fees, funding and the trade list, plus the path of the HTML report. Long-running: " +
    "reports progress as the replay advances and stops when the request is cancelled. Nothing is sent to any " +
    "exchange.",
  input: {
    strategy: z.string().min(1).describe("Strategy id, see the strategies tool (e.g. momentum_breakout)"),
    instrument: z.string().default("ETH-PERP").describe("Instrument, e.g. ETH-PERP"),
    from: z.string().min(1).describe("Start: 2026-01-31, an ISO time or epoch ms (UTC)"),
    to: z.string().min(1).describe("End (exclusive), same forms"),
    params: z
      .record(z.string(), z.number())
      .default({})
      .describe('Strategy param overrides, e.g. {"lookback": 30}'),
    risk: z
      .record(z.string(), z.number())
      .default({})
      .describe("Risk limit overrides (capital_usd is the starting equity)"),
    fee_tier: z.number().int().min(0).max(6).default(0).describe("Hyperliquid perp fee tier 0–6"),
    maker_fee: z
      .string()
      .optional()
      .describe(
        'Maker fee rate of your own in place of the tier\'s (fraction of notional, e.g. "0.0001"; negative: a rebate)',
      ),
    taker_fee: z
      .string()
      .optional()
      .describe('Taker fee rate of your own in place of the tier\'s (fraction of notional, e.g. "0.00035")'),
    latency_ms: z.number().min(0).default(0).describe("Order and cancel latency, market time"),
    slippage_bps: z
      .number()
      .min(0)
      .default(1)
      .describe(
        "A taker meets the touch at its arrival moved this much against it; beyond its limit it does not fill (so an IOC at the touch fills only at 0)",
      ),
    participation_pct: z
      .number()
      .gt(0)
      .max(100)
      .default(DEFAULT_PARTICIPATION * 100)
      .describe("Our fills in a candle are at most this share of its volume, percent"),
    interval: z.enum(["1m", "5m", "1h"]).default("1m").describe("Candle interval to replay"),
    network: z
      .enum(["mainnet", "testnet", "paper"])
      .nullable()
      .default(null)
      .describe("Whose recorded data (default: HL_NETWORK, else paper)"),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(args, ctx) {
    let reported = -1;
    try {
      const r = await backtestCommand({
        strategy: args.strategy,
        instrument: args.instrument,
        from: args.from,
        to: args.to,
        params: args.params,
        risk: args.risk,
        feeTier: args.fee_tier,
        ...(args.maker_fee !== undefined ? { makerFee: args.maker_fee } : {}),
        ...(args.taker_fee !== undefined ? { takerFee: args.taker_fee } : {}),
        latencyMs: args.latency_ms,
        slippageBps: args.slippage_bps,
        participation: args.participation_pct / 100,
        interval: args.interval,
        network: resolveNetwork(args.network ?? undefined, ctx.env),
        dataDir: ctx.dataDir,
        signal: ctx.signal,
        onProgress(done, total) {
          const step = Math.floor((done * PROGRESS_STEPS) / total);
          if (step === reported) return;
          reported = step;
          ctx.progress({ progress: done, total, message: `${done}/${total} candles replayed` });
        },
      });
      return new TextAndData(formatSummary(r.summary, r.reportPath).join("\n"), {
        ...r.summary,
        report: r.reportPath,
      });
    } catch (e) {
      if (e instanceof UserError) throw new ToolError(e.message);
      throw e;
    }
  },
});

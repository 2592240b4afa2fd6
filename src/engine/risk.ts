import { z } from "zod";
import { D, type Dec, dec, wire } from "../core/decimal.ts";
import type { OrderIntent } from "../strategies/sdk.ts";

/**
 * Risk manager (pure). Every limit is overridable with `hl run --risk key=value`; the meanings below
 * are the documentation (docs/strategies.md prints them, `npm run docs`).
 * Reduce-only is recomputed every tick from the current numbers (it lifts when they recover);
 * a hard stop is sticky and persisted until the operator starts with --fresh.
 */
export const riskLimitsSchema = z.object({
  max_position_qty: z
    .number()
    .positive()
    .default(10)
    .describe(
      "Largest |position|, base units: orders are trimmed to fit, projected as if every order of the tick filled; at the limit the engine turns reduce-only.",
    ),
  max_notional_usd: z
    .number()
    .positive()
    .default(25_000)
    .describe("Largest |position| × mark, USD, with the same trimming and reduce-only at the limit."),
  max_order_size: z.number().positive().default(5).describe("A larger order (base units) is rejected."),
  price_band_bps: z
    .number()
    .positive()
    .default(500)
    .describe("An order priced further than this from mid (bps) is rejected."),
  max_drawdown_usd: z
    .number()
    .positive()
    .default(2_500)
    .describe("Net PnL this far (USD) below its high-water mark → reduce-only."),
  daily_loss_usd: z
    .number()
    .positive()
    .default(1_000)
    .describe("Net PnL since 00:00 UTC this far (USD) below zero → reduce-only."),
  hard_stop_mult: z
    .number()
    .min(1)
    .default(2)
    .describe(
      "Drawdown or daily loss at this multiple of its limit → cancel every order and stop, until --fresh.",
    ),
  capital_usd: z
    .number()
    .positive()
    .default(100_000)
    .describe("Reference capital (USD) for the drawdown percent strategies see."),
});
export type RiskLimits = z.infer<typeof riskLimitsSchema>;

/** The risk limits as a markdown table (docs/strategies.md): name, default, meaning. */
export function riskLimitsMarkdown(): string {
  const defaults = riskLimitsSchema.parse({});
  const rows = (Object.keys(riskLimitsSchema.shape) as (keyof RiskLimits)[]).map(
    (k) =>
      `| \`${k}\` | \`${JSON.stringify(defaults[k])}\` | ${(riskLimitsSchema.shape[k].description ?? "").replaceAll("|", "\\|")} |`,
  );
  return ["| limit | default | meaning |", "|---|---|---|", ...rows].join("\n");
}

export const DEFAULT_RISK_LIMITS: RiskLimits = riskLimitsSchema.parse({});

export interface RiskState {
  high_water: string;
  /** UTC day (YYYY-MM-DD) the daily PnL is measured from. */
  day: string;
  day_start_pnl: string;
  drawdown: string;
  daily_pnl: string;
  reduce_only: boolean;
  reasons: string[];
  halted: boolean;
  halt_reason: string;
}

export function initialRiskState(): RiskState {
  return {
    high_water: "0",
    day: "",
    day_start_pnl: "0",
    drawdown: "0",
    daily_pnl: "0",
    reduce_only: false,
    reasons: [],
    halted: false,
    halt_reason: "",
  };
}

function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

interface RiskInput {
  /** Net PnL (realized + unrealized − fees) at the current mark. */
  pnl: Dec;
  positionQty: Dec;
  mark: Dec;
  nowMs: number;
}

export type RiskMode = "ok" | "reduce_only" | "halt";

export function evaluateRisk(
  limits: RiskLimits,
  prev: RiskState,
  x: RiskInput,
): { state: RiskState; mode: RiskMode } {
  const day = utcDay(x.nowMs);
  const dayStart = prev.day === day ? dec(prev.day_start_pnl) : x.pnl;
  const highWater = D.max(dec(prev.high_water), x.pnl);
  const drawdown = highWater.minus(x.pnl);
  const daily = x.pnl.minus(dayStart);
  const reasons: string[] = [];
  if (drawdown.gte(limits.max_drawdown_usd)) reasons.push("max_drawdown");
  if (daily.neg().gte(limits.daily_loss_usd)) reasons.push("daily_loss");
  if (x.positionQty.abs().gte(limits.max_position_qty)) reasons.push("max_position");
  if (x.positionQty.abs().times(x.mark).gte(limits.max_notional_usd)) reasons.push("max_notional");
  let halted = prev.halted;
  let haltReason = prev.halt_reason;
  if (!halted) {
    if (drawdown.gte(limits.max_drawdown_usd * limits.hard_stop_mult))
      haltReason = `hard drawdown ${wire(drawdown.toDecimalPlaces(2))}`;
    else if (daily.neg().gte(limits.daily_loss_usd * limits.hard_stop_mult))
      haltReason = `hard daily loss ${wire(daily.toDecimalPlaces(2))}`;
    halted = haltReason !== "";
  }
  const state: RiskState = {
    high_water: wire(highWater),
    day,
    day_start_pnl: wire(dayStart),
    drawdown: wire(drawdown),
    daily_pnl: wire(daily),
    reduce_only: reasons.length > 0,
    reasons,
    halted,
    halt_reason: haltReason,
  };
  return { state, mode: halted ? "halt" : reasons.length > 0 ? "reduce_only" : "ok" };
}

export function drawdownPct(limits: RiskLimits, s: RiskState): number {
  return (Number(s.drawdown) / limits.capital_usd) * 100;
}

interface Rejection {
  intent: OrderIntent;
  reason: string;
}

/**
 * Pre-trade checks on one tick's intents, in order, each side projected cumulatively as if every
 * order filled: size cap, price band, reduce-only (an order may only shrink the position and never
 * flip it), then the position and notional caps (orders are trimmed to what fits; what only
 * reduces always fits).
 */
export function filterIntents(
  limits: RiskLimits,
  intents: readonly OrderIntent[],
  x: { positionQty: number; mid: number; reduceOnly: boolean },
): { approved: OrderIntent[]; rejected: Rejection[] } {
  const approved: OrderIntent[] = [];
  const rejected: Rejection[] = [];
  const cap = Math.min(
    limits.max_position_qty,
    x.mid > 0 ? limits.max_notional_usd / x.mid : Number.POSITIVE_INFINITY,
  );
  let buys = 0;
  let sells = 0;
  for (const o of intents) {
    if (!(o.size > 0) || !(o.price > 0)) {
      rejected.push({ intent: o, reason: "non-positive size or price" });
      continue;
    }
    if (o.size > limits.max_order_size) {
      rejected.push({ intent: o, reason: `size ${o.size} above max_order_size ${limits.max_order_size}` });
      continue;
    }
    if (x.mid > 0 && Math.abs(o.price - x.mid) / x.mid > limits.price_band_bps / 10_000) {
      rejected.push({
        intent: o,
        reason: `price ${o.price} outside ${limits.price_band_bps} bps of mid ${x.mid}`,
      });
      continue;
    }
    const q = x.positionQty;
    // Room left on this side: up to the cap, or only back to flat when reducing is all that is allowed.
    const reduceOnly = x.reduceOnly || o.reduceOnly === true;
    const room =
      o.side === "buy"
        ? reduceOnly
          ? Math.max(0, -q - buys)
          : Math.max(0, cap - q - buys)
        : reduceOnly
          ? Math.max(0, q - sells)
          : Math.max(0, cap + q - sells);
    const size = Math.min(o.size, room);
    if (size <= 1e-12) {
      rejected.push({ intent: o, reason: reduceOnly ? "reduce-only" : "position/notional limit" });
      continue;
    }
    // What may only reduce says so on the wire, so the exchange itself refuses an increase.
    const kept =
      size === o.size && (!reduceOnly || o.reduceOnly)
        ? o
        : { ...o, size, ...(reduceOnly ? { reduceOnly: true } : {}) };
    approved.push(kept);
    if (o.side === "buy") buys += size;
    else sells += size;
  }
  return { approved, rejected };
}

import { z } from "zod";
import { type Advice, type DecisionContext, defineStrategy } from "./sdk.ts";
import { BPS, hasMarket, limitExposure, pushWindow, take } from "./util.ts";

const llmAgentParams = z.object({
  base_size: z
    .number()
    .positive()
    .default(0.5)
    .describe("Largest order the model may place, base units; a bigger size in its answer is cut to this."),
  max_position: z
    .number()
    .positive()
    .default(5)
    .describe(
      "Largest absolute position the model's orders may lead to, base units; an order is trimmed (or dropped) to stay within it.",
    ),
  price_band_bps: z
    .number()
    .positive()
    .default(100)
    .describe("An order priced further than this from mid, bps of mid, is refused and the tick holds."),
  timeout_s: z
    .number()
    .positive()
    .default(15)
    .describe("Seconds the model call may take; after that it is abandoned and the tick holds."),
  price_history_len: z
    .number()
    .int()
    .min(1)
    .default(20)
    .describe("Recent mids, one per tick, listed newest first in the prompt."),
});
type LlmAgentParams = z.infer<typeof llmAgentParams>;

interface LlmState {
  /** Recent mids, newest last. */
  mids: number[];
  /** What happened to the last advice (for logs and the next prompt). */
  lastOutcome: string;
}

/** The tool contract offered to every provider: exactly one call of place_order or hold. */
export const LLM_TOOLS = [
  {
    name: "place_order",
    description: "Place one IOC limit order on the instrument.",
    parameters: {
      type: "object",
      properties: {
        side: { type: "string", enum: ["buy", "sell"] },
        size: { type: "number", description: "Order size in base units (positive)" },
        price: { type: "number", description: "Limit price" },
        reasoning: { type: "string", description: "One or two sentences" },
      },
      required: ["side", "size", "price", "reasoning"],
    },
  },
  {
    name: "hold",
    description: "Do nothing this tick.",
    parameters: {
      type: "object",
      properties: { reasoning: { type: "string", description: "One or two sentences" } },
      required: ["reasoning"],
    },
  },
] as const;

const LLM_SYSTEM_PROMPT = [
  "You trade one Hyperliquid perpetual autonomously. Each turn you receive market data, your position,",
  "the risk state and recent history. Call exactly one tool: place_order or hold.",
  "Weigh trend, spread, funding, inventory and drawdown; prefer holding when unsure.",
  "If reduce-only is on, only place orders that shrink the position. Respect every constraint listed.",
  "Keep reasoning to one or two sentences.",
].join("\n");

const f = (x: number, dp: number) => x.toFixed(dp);
const signed = (x: number) => (x >= 0 ? `+${x.toFixed(2)}` : x.toFixed(2));

export function buildUserMessage(ctx: DecisionContext, p: LlmAgentParams, mids: readonly number[]): string {
  const s = ctx.snapshot;
  const spreadBps = s.mid > 0 && s.ask > s.bid ? ((s.ask - s.bid) / s.mid) * BPS : 0;
  const lines = [
    `=== MARKET DATA (Tick ${ctx.tick + 1}) ===`,
    `Instrument: ${s.instrument}`,
    `Mid: ${f(s.mid, 4)}`,
    `Bid: ${f(s.bid, 4)}  Ask: ${f(s.ask, 4)}`,
    `Spread: ${f(spreadBps, 1)} bps`,
    `Funding rate (hourly): ${f(s.fundingRate, 6)}`,
    `Open interest: ${f(s.openInterest, 0)}`,
    `24h volume: ${f(s.volume24h, 0)}`,
    "=== YOUR POSITION ===",
    `Qty: ${ctx.positionQty >= 0 ? "+" : ""}${f(ctx.positionQty, 4)}`,
    `Avg entry: ${f(ctx.avgEntryPrice, 4)}`,
    `Unrealized PnL: $${signed(ctx.unrealizedPnl)}`,
    `Realized PnL: $${signed(ctx.realizedPnl)}`,
    "=== RISK STATE ===",
    `Reduce only: ${ctx.risk.reduceOnly}`,
    `Drawdown: ${f(ctx.risk.drawdownPct, 2)}%`,
    "=== RECENT PRICES (newest first) ===",
    ...[...mids].reverse().map((m) => f(m, 4)),
    "=== RECENT FILLS (newest first) ===",
    ...(ctx.recentFills.length
      ? ctx.recentFills.map((x) => `${x.side.toUpperCase()} ${f(x.size, 4)} @ ${f(x.price, 4)}`)
      : ["none"]),
    "=== CONSTRAINTS ===",
    `Max order size: ${p.base_size}`,
    `Max position: ${p.max_position}`,
    `Price band: within ${p.price_band_bps} bps of mid (${f(s.mid * (1 - p.price_band_bps / BPS), 4)} to ${f(s.mid * (1 + p.price_band_bps / BPS), 4)})`,
  ];
  return lines.join("\n");
}

/** Why a piece of advice is refused, or null when it can be turned into an order. */
function refusal(a: Advice, mid: number, p: LlmAgentParams): string | null {
  if (a.kind === "error") return `advisor error: ${a.message}`;
  if (a.kind === "hold") return "hold";
  if (a.side !== "buy" && a.side !== "sell") return `invalid side ${JSON.stringify(a.side)}`;
  if (!Number.isFinite(a.size) || a.size <= 0) return "size must be positive";
  if (!Number.isFinite(a.price) || a.price <= 0) return "price must be positive";
  if (Math.abs(a.price - mid) / mid > p.price_band_bps / BPS) return "price outside the band around mid";
  return null;
}

/**
 * LLM-driven agent. The model call itself happens outside (the engine awaits an advisor port with
 * `adviceRequest`'s prompt and timeout); this code only builds the prompt and enforces the limits on
 * the answer: one order at most, size ≤ base_size, resulting |position| ≤ max_position, price within
 * the band, reduce-only respected, and anything unparseable → hold.
 */
export const llmAgent = defineStrategy<LlmAgentParams, LlmState>({
  id: "llm_agent",
  description: "LLM trading agent — Anthropic, OpenAI or Google model with enforced limits",
  type: "llm",
  params: llmAgentParams,
  needs: { assetContext: true },
  init: () => ({ mids: [], lastOutcome: "" }),
  adviceRequest(ctx, p, state) {
    if (!hasMarket(ctx.snapshot)) return null;
    const mids = pushWindow(state.mids, ctx.snapshot.mid, p.price_history_len);
    return { system: LLM_SYSTEM_PROMPT, user: buildUserMessage(ctx, p, mids), timeoutMs: p.timeout_s * 1000 };
  },
  decide(ctx, p, state) {
    const s = ctx.snapshot;
    if (!hasMarket(s)) return { orders: [], state };
    const mids = pushWindow(state.mids, s.mid, p.price_history_len);
    const advice: Advice = ctx.advice ?? { kind: "error", message: "no advice" };
    const why = refusal(advice, s.mid, p);
    if (why !== null || advice.kind !== "place_order") {
      return { orders: [], state: { mids, lastOutcome: why ?? "hold" }, meta: { outcome: why ?? "hold" } };
    }
    const side = advice.side as "buy" | "sell";
    const order = take(side, advice.price, Math.min(advice.size, p.base_size), "llm_agent");
    const orders = limitExposure([order], ctx.positionQty, p.max_position, ctx.risk.reduceOnly);
    const outcome = orders.length
      ? `${side} ${orders[0]!.size} @ ${advice.price}`
      : "refused: position limit";
    return { orders, state: { mids, lastOutcome: outcome }, meta: { outcome, reasoning: advice.reasoning } };
  },
});

const placeOrderArgs = z.object({
  side: z.string(),
  size: z.coerce.number(),
  price: z.coerce.number(),
  reasoning: z.string().default(""),
});
const holdArgs = z.object({ reasoning: z.string().default("") });

/**
 * A provider's tool calls as advice: exactly one call of a known tool with well-formed arguments,
 * anything else is an error (which the strategy turns into a hold).
 */
export function adviceFromToolCalls(calls: readonly { name: string; args: unknown }[]): Advice {
  if (calls.length !== 1)
    return { kind: "error", message: `expected exactly one tool call, got ${calls.length}` };
  const [call] = calls as [{ name: string; args: unknown }];
  let args = call.args;
  if (typeof args === "string") {
    try {
      args = JSON.parse(args);
    } catch {
      return { kind: "error", message: `arguments of ${call.name} are not JSON` };
    }
  }
  if (call.name === "hold") {
    const h = holdArgs.safeParse(args ?? {});
    return h.success
      ? { kind: "hold", reasoning: h.data.reasoning }
      : { kind: "error", message: "bad hold arguments" };
  }
  if (call.name === "place_order") {
    const o = placeOrderArgs.safeParse(args);
    return o.success
      ? { kind: "place_order", ...o.data }
      : { kind: "error", message: "bad place_order arguments" };
  }
  return { kind: "error", message: `unknown tool ${JSON.stringify(call.name)}` };
}

import { describe, expect, it } from "vitest";
import { adviceFromToolCalls, buildUserMessage, llmAgent } from "../../src/strategies/llm_agent.ts";
import type { Advice } from "../../src/strategies/sdk.ts";
import { ctx, snap } from "./helpers.ts";

const p = llmAgent.params.parse({});
const decide = (advice: Advice, over: Parameters<typeof ctx>[0] = {}) =>
  llmAgent.decide(ctx({ ...over, advice }), p, llmAgent.init(p));
const order = (side: string, size: number, price: number): Advice => ({
  kind: "place_order",
  side,
  size,
  price,
  reasoning: "r",
});

describe("llm_agent decision rule (pure)", () => {
  it("a valid place_order becomes one IOC order", () => {
    expect(decide(order("buy", 0.3, 2500)).orders).toEqual([
      { side: "buy", price: 2500, size: 0.3, tif: "Ioc", tag: "llm_agent" },
    ]);
  });

  it("caps size at base_size and the resulting position at max_position", () => {
    expect(decide(order("buy", 10, 2500)).orders[0]!.size).toBe(0.5);
    expect(decide(order("buy", 0.5, 2500), { positionQty: 4.8 }).orders[0]!.size).toBeCloseTo(0.2, 9);
    expect(decide(order("buy", 0.5, 2500), { positionQty: 5 }).orders).toEqual([]);
    expect(decide(order("sell", 0.5, 2500), { positionQty: 5 }).orders).toHaveLength(1);
  });

  it("refuses prices outside the band around mid (predecessor had none)", () => {
    expect(decide(order("buy", 0.1, 2500 * 1.02)).orders).toEqual([]);
    expect(decide(order("sell", 0.1, 2500 * 0.98)).orders).toEqual([]);
    expect(decide(order("buy", 0.1, 2500 * 1.009)).orders).toHaveLength(1);
  });

  it("holds on hold, bad side, non-positive size or price, errors and missing advice", () => {
    for (const a of [
      { kind: "hold", reasoning: "" } as Advice,
      order("long", 0.1, 2500),
      order("buy", 0, 2500),
      order("buy", -1, 2500),
      order("buy", 0.1, 0),
      { kind: "error", message: "timeout" } as Advice,
    ]) {
      expect(decide(a).orders).toEqual([]);
    }
    expect(llmAgent.decide(ctx(), p, llmAgent.init(p)).orders).toEqual([]);
  });

  it("reduce-only: only an order that shrinks the position passes", () => {
    const ro = { reduceOnly: true, drawdownPct: 0 };
    expect(decide(order("buy", 0.3, 2500), { positionQty: 1, risk: ro }).orders).toEqual([]);
    expect(decide(order("sell", 0.3, 2500), { positionQty: 1, risk: ro }).orders).toHaveLength(1);
  });

  it("parses exactly one tool call; anything else holds", () => {
    expect(
      adviceFromToolCalls([
        { name: "place_order", args: '{"side":"sell","size":0.2,"price":2501,"reasoning":"x"}' },
      ]),
    ).toEqual({
      kind: "place_order",
      side: "sell",
      size: 0.2,
      price: 2501,
      reasoning: "x",
    });
    expect(adviceFromToolCalls([{ name: "hold", args: { reasoning: "wait" } }])).toEqual({
      kind: "hold",
      reasoning: "wait",
    });
    expect(adviceFromToolCalls([]).kind).toBe("error");
    expect(
      adviceFromToolCalls([
        { name: "hold", args: {} },
        { name: "hold", args: {} },
      ]).kind,
    ).toBe("error");
    expect(adviceFromToolCalls([{ name: "buy_everything", args: {} }]).kind).toBe("error");
    expect(adviceFromToolCalls([{ name: "place_order", args: "{not json" }]).kind).toBe("error");
    expect(adviceFromToolCalls([{ name: "place_order", args: { side: "buy" } }]).kind).toBe("error");
  });

  it("the prompt carries market, position, risk, real fills and the enforced constraints", () => {
    const c = ctx({
      snapshot: snap({ fundingRate: 0.0001 }),
      positionQty: 1.5,
      recentFills: [{ side: "buy", price: 2499, size: 0.5, timestampMs: 1 }],
      risk: { reduceOnly: true, drawdownPct: 1.25 },
    });
    const msg = buildUserMessage(c, p, [2499, 2500]);
    for (const s of [
      "=== MARKET DATA (Tick 1) ===",
      "Mid: 2500.0000",
      "=== YOUR POSITION ===",
      "Qty: +1.5000",
      "Reduce only: true",
      "Drawdown: 1.25%",
      "=== RECENT PRICES (newest first) ===\n2500.0000\n2499.0000",
      "BUY 0.5000 @ 2499.0000",
      "Max order size: 0.5",
      "Max position: 5",
      "Price band: within 100 bps of mid",
    ]) {
      expect(msg).toContain(s);
    }
    const req = llmAgent.adviceRequest!(c, p, llmAgent.init(p));
    expect(req?.timeoutMs).toBe(15_000);
    expect(llmAgent.adviceRequest!(ctx({ snapshot: snap({ mid: 0 }) }), p, llmAgent.init(p))).toBeNull();
  });
});

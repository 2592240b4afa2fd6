import { describe, expect, it } from "vitest";
import { buildWolfConfig, tickFromEnv } from "../../src/wolf/config.ts";
import { entryCandidates, planTick, type TickInputs, trackSlot } from "../../src/wolf/engine.ts";
import { emptySlot, freshState, resizeSlots, type Slot, type WolfState } from "../../src/wolf/state.ts";

const NOW = Date.UTC(2026, 0, 5, 12);
const cfg = buildWolfConfig("default");
const inst = (c: string) => `${c}-PERP`;

function active(id: number, coin: string, side: "long" | "short", over: Partial<Slot> = {}): Slot {
  return {
    ...emptySlot(id),
    status: "active",
    instrument: inst(coin),
    coin,
    side,
    entry_price: "2500",
    entry_size: "13.333",
    margin_allocated: "3333.33",
    leverage: 10,
    current_price: "2500",
    dsl_phase: 1,
    opened_at_ms: NOW - 60_000,
    last_progress_ms: NOW - 60_000,
    last_signal_seen_ms: NOW - 60_000,
    ...over,
  };
}

function state(slots: Slot[] = [], over: Partial<WolfState> = {}): WolfState {
  const s = freshState("default", cfg, NOW);
  slots.forEach((x) => {
    s.slots[x.slot_id] = x;
  });
  return { ...s, ...over };
}

function inputs(over: Partial<TickInputs> = {}): TickInputs {
  return {
    nowMs: NOW,
    prices: new Map(),
    dslCloses: new Map(),
    movers: [],
    scanner: [],
    smartMoney: [],
    ...over,
  };
}

const imm = (asset: string, direction = "LONG", confidence = 100) => ({
  asset,
  signal_type: "IMMEDIATE_MOVER",
  direction,
  confidence,
});

describe("presets and config", () => {
  it("paper_10k keeps a $10,000 wallet's exposure under its value: 3 slots of $1,000 margin at 3x ($9,000 notional in all)", () => {
    const p = buildWolfConfig("paper_10k");
    const wallet = 10_000;
    expect(p.max_slots * p.margin_per_slot * p.leverage).toBeLessThanOrEqual(wallet);
    expect([p.total_budget, p.max_slots, p.margin_per_slot, p.leverage]).toEqual([3000, 3, 1000, 3]);
    // The hard stop is a 5 % adverse move at 3x, not the default's 0.5 % at 10x.
    expect(p.max_negative_roe / p.leverage).toBeCloseTo(-5, 6);
    expect(p.daily_loss_limit).toBe(300);
  });

  it("has default / conservative / aggressive with their values", () => {
    const [d, c, a] = ["default", "conservative", "aggressive"].map((p) => buildWolfConfig(p));
    expect([
      d!.max_slots,
      d!.leverage,
      d!.scanner_score_threshold,
      d!.movers_confidence_threshold,
      d!.daily_loss_limit,
    ]).toEqual([3, 10, 170, 70, 500]);
    expect(d!.margin_per_slot).toBeCloseTo(3333.333, 3);
    expect([
      c!.max_slots,
      c!.leverage,
      c!.scanner_score_threshold,
      c!.movers_confidence_threshold,
      c!.daily_loss_limit,
    ]).toEqual([2, 5, 190, 80, 250]);
    expect(c!.margin_per_slot).toBe(5000);
    expect([
      a!.max_slots,
      a!.leverage,
      a!.scanner_score_threshold,
      a!.movers_confidence_threshold,
      a!.daily_loss_limit,
    ]).toEqual([3, 15, 150, 60, 1000]);
    for (const p of [d!, c!, a!]) {
      expect(p.total_budget).toBe(10_000);
      expect(p.dsl_preset).toBe("tight");
      expect(p.tick_interval_s).toBe(60);
    }
    expect(buildWolfConfig("default", { budget: 10_000, slots: 5 }).margin_per_slot).toBe(2000);
    expect(() => buildWolfConfig("yolo")).toThrow(/Unknown WOLF preset/);
  });

  it("tick from WOLF_TICK, else TICK_INTERVAL", () => {
    expect(tickFromEnv({ WOLF_TICK: "5", TICK_INTERVAL: "9" })).toBe(5);
    expect(tickFromEnv({ TICK_INTERVAL: "9" })).toBe(9);
    expect(tickFromEnv({})).toBeUndefined();
    expect(() => tickFromEnv({ WOLF_TICK: "x" })).toThrow();
  });

  it("resizes slots to max_slots without dropping an occupied slot", () => {
    const s = [emptySlot(0), active(1, "ETH", "long"), emptySlot(2), emptySlot(3)];
    expect(resizeSlots(s, 2).map((x) => x.slot_id)).toEqual([0, 1]);
    expect(resizeSlots([emptySlot(0), emptySlot(1), active(2, "ETH", "long")], 1)).toHaveLength(3);
    expect(resizeSlots([emptySlot(0)], 3)).toHaveLength(3);
  });
});

describe("risk gate", () => {
  it("daily PnL at −limit closes every active slot with reason daily_loss_limit, and blocks entries", () => {
    const p = planTick(
      state([active(0, "ETH", "long"), active(1, "SOL", "short")], { daily_pnl: "-500" }),
      cfg,
      inputs({ movers: [imm("DOGE")] }),
      inst,
    );
    expect(p.exits.map((e) => e.reason)).toEqual(["daily_loss_limit", "daily_loss_limit"]);
    expect(p.entries).toEqual([]);
    expect(p.daily_loss_triggered).toBe(true);
  });
  it("a latched trigger closes even at 0 PnL; −100 does not", () => {
    expect(
      planTick(state([active(0, "ETH", "long")], { daily_loss_triggered: true }), cfg, inputs(), inst).exits,
    ).toHaveLength(1);
    expect(
      planTick(state([active(0, "ETH", "long")], { daily_pnl: "-100" }), cfg, inputs(), inst).exits,
    ).toHaveLength(0);
  });
  it("unrealized losses count toward the daily limit (predecessor: realized only)", () => {
    // long 13.333 ETH from 2500; at 2460 that is −533 USD unrealized
    const p = planTick(
      state([active(0, "ETH", "long")]),
      cfg,
      inputs({ prices: new Map([["ETH", 2460]]) }),
      inst,
    );
    expect(p.daily_loss_triggered).toBe(true);
  });
});

describe("exit rules", () => {
  it("DSL close keeps the guard's reason (B1)", () => {
    const p = planTick(
      state([active(0, "ETH", "long")]),
      cfg,
      inputs({ dslCloses: new Map([[0, "Phase 2 close: tier 1"]]) }),
      inst,
    );
    expect(p.exits).toEqual([{ slot_id: 0, reason: "dsl_close: Phase 2 close: tier 1" }]);
  });
  it("hard stop at ROE ≤ −5 % (inclusive)", () => {
    const at = (px: number, entry = "2500") =>
      planTick(
        state([active(0, "ETH", "long", { entry_price: entry })]),
        { ...cfg, daily_loss_limit: 1e9 },
        inputs({ prices: new Map([["ETH", px]]) }),
        inst,
      ).exits;
    expect(at(2350)[0]?.reason).toContain("hard_stop: ROE -60.0%");
    expect(at(2490)).toEqual([]);
    expect(at(99.5, "100")[0]?.reason).toContain("hard_stop");
  });
  it("conviction collapse after 30 min without a same-direction signal while losing", () => {
    const slot = active(0, "ETH", "long", { signal_disappeared_ms: NOW - 31 * 60_000, entry_price: "2500" });
    const p = planTick(state([slot]), cfg, inputs({ prices: new Map([["ETH", 2495]]) }), inst);
    expect(p.exits[0]?.reason).toMatch(/^conviction_collapse: 31min no signal, ROE=-2.0%/);
    const still = planTick(
      state([slot]),
      cfg,
      inputs({
        prices: new Map([["ETH", 2495]]),
        movers: [{ asset: "ETH", signal_type: "OI_BREAKOUT", direction: "LONG", confidence: 10 }],
      }),
      inst,
    );
    expect(still.exits).toEqual([]);
    expect(still.slots[0]!.signal_disappeared_ms).toBe(0);
  });
  it("an opposite-direction signal does not count as 'still signalled'", () => {
    const slot = active(0, "ETH", "long", { signal_disappeared_ms: NOW - 31 * 60_000 });
    const p = planTick(
      state([slot]),
      cfg,
      inputs({ prices: new Map([["ETH", 2495]]), movers: [imm("ETH", "SHORT")] }),
      inst,
    );
    expect(p.exits[0]?.reason).toContain("conviction_collapse");
  });
  it("stagnation take-profit: ROE ≥ 3 % without progress for 60 min", () => {
    const slot = active(0, "ETH", "long", {
      high_water_roe: 5,
      roe_pct: 5,
      last_progress_ms: NOW - 61 * 60_000,
    });
    const p = planTick(
      state([slot]),
      cfg,
      inputs({ prices: new Map([["ETH", 2512.5]]), movers: [imm("ETH")] }),
      inst,
    );
    expect(p.exits[0]?.reason).toBe("stagnation_tp: ROE=5.0% stuck for 61min");
  });
  it("tracks ROE and high water exactly", () => {
    const l = trackSlot(active(0, "ETH", "long"), 2525, NOW);
    expect(l.roe_pct).toBe(10);
    expect(l.high_water_roe).toBe(10);
    expect(l.last_progress_ms).toBe(NOW);
    expect(trackSlot(active(0, "ETH", "short"), 2475, NOW).roe_pct).toBe(10);
  });
});

describe("entries", () => {
  it("IMMEDIATE mover enters long; scanner ≥ 170; other movers ≥ 70", () => {
    const p = planTick(state(), cfg, inputs({ movers: [imm("ETH")] }), inst);
    expect(p.entries).toMatchObject([
      { slot_id: 0, coin: "ETH", direction: "long", source: "movers_immediate" },
    ]);
    expect(
      planTick(
        state(),
        cfg,
        inputs({ scanner: [{ asset: "SOL", direction: "LONG", final_score: 185 }] }),
        inst,
      ).entries[0]?.source,
    ).toBe("scanner");
    expect(
      planTick(
        state(),
        cfg,
        inputs({ scanner: [{ asset: "SOL", direction: "LONG", final_score: 150 }] }),
        inst,
      ).entries,
    ).toEqual([]);
    const oi = (c: number) =>
      planTick(
        state(),
        cfg,
        inputs({ movers: [{ asset: "DOGE", signal_type: "OI_BREAKOUT", direction: "LONG", confidence: c }] }),
        inst,
      ).entries;
    expect(oi(80)[0]?.source).toBe("movers_signal");
    expect(oi(70)).toHaveLength(1);
    expect(oi(50)).toEqual([]);
  });
  it("IMMEDIATE needs a confidence floor: an erratic (halved) signal does not auto-enter", () => {
    expect(planTick(state(), cfg, inputs({ movers: [imm("ETH", "LONG", 50)] }), inst).entries).toEqual([]);
  });
  it("no re-entry of a held instrument, no entry when full, excluded instruments skipped", () => {
    expect(
      planTick(state([active(0, "ETH", "long")]), cfg, inputs({ movers: [imm("ETH")] }), inst).entries,
    ).toEqual([]);
    const full = state([active(0, "A", "long"), active(1, "B", "short"), active(2, "C", "short")]);
    expect(planTick(full, cfg, inputs({ movers: [imm("X")] }), inst).entries).toEqual([]);
    expect(
      planTick(
        state(),
        { ...cfg, excluded_instruments: ["MEME-PERP"] },
        inputs({ movers: [imm("MEME")] }),
        inst,
      ).entries,
    ).toEqual([]);
  });
  it("two longs held: a third long is refused", () => {
    const p = planTick(
      state([active(0, "A", "long"), active(1, "B", "long")]),
      cfg,
      inputs({ movers: [imm("X")] }),
      inst,
    );
    expect(p.entries).toEqual([]);
  });
  it("the direction limit counts entries of the same tick: three IMMEDIATE shorts → two entries (B4)", () => {
    const p = planTick(
      state(),
      cfg,
      inputs({ movers: [imm("X", "SHORT"), imm("Y", "SHORT"), imm("Z", "SHORT")] }),
      inst,
    );
    expect(p.entries.map((e) => e.coin)).toEqual(["X", "Y"]);
    const mixed = planTick(state(), cfg, inputs({ movers: [imm("X", "LONG"), imm("Y", "SHORT")] }), inst);
    expect(mixed.entries).toHaveLength(2);
  });
  it("correlation gate: at most two of one group, counting same-tick entries", () => {
    const p = planTick(
      state([active(0, "BTC", "long")]),
      cfg,
      inputs({ movers: [imm("ETH", "SHORT")] }),
      inst,
    );
    expect(p.entries).toHaveLength(1);
    const c1 = { ...cfg, max_correlated: 1 };
    expect(
      planTick(state([active(0, "BTC", "long")]), c1, inputs({ movers: [imm("ETH", "SHORT")] }), inst)
        .entries,
    ).toEqual([]);
    const same = planTick(state(), c1, inputs({ movers: [imm("SOL", "LONG"), imm("AVAX", "SHORT")] }), inst);
    expect(same.entries.map((e) => e.coin)).toEqual(["SOL"]);
  });
  it("priorities: IMMEDIATE > HIGH_CONVICTION > scanner > SMART_MONEY > movers; best source per coin wins", () => {
    const one = { ...cfg, max_slots: 1 };
    const s1 = { ...state(), slots: [emptySlot(0)] };
    expect(
      planTick(
        s1,
        one,
        inputs({ movers: [imm("ETH")], scanner: [{ asset: "SOL", direction: "LONG", final_score: 200 }] }),
        inst,
      ).entries[0]?.coin,
    ).toBe("ETH");
    expect(
      planTick(
        s1,
        one,
        inputs({
          scanner: [{ asset: "SOL", direction: "LONG", final_score: 190 }],
          movers: [{ asset: "DOGE", signal_type: "OI_BREAKOUT", direction: "LONG", confidence: 80 }],
        }),
        inst,
      ).entries[0]?.coin,
    ).toBe("SOL");
    const hc = { asset: "ETH", signal_type: "HIGH_CONVICTION", direction: "LONG", confidence: 85 };
    expect(
      planTick(
        s1,
        one,
        inputs({ smartMoney: [hc], scanner: [{ asset: "SOL", direction: "LONG", final_score: 200 }] }),
        inst,
      ).entries[0]?.source,
    ).toBe("smart_money:HIGH_CONVICTION");
    expect(
      planTick(s1, one, inputs({ smartMoney: [{ ...hc, confidence: 95 }], movers: [imm("BTC")] }), inst)
        .entries[0]?.source,
    ).toBe("movers_immediate");
    // same coin from SMART_MONEY (2.5) and scanner (2): the scanner candidate is kept (predecessor kept the first)
    const c = entryCandidates(
      cfg,
      inputs({
        smartMoney: [{ asset: "ETH", signal_type: "SMART_MONEY", direction: "LONG", confidence: 75 }],
        scanner: [{ asset: "ETH", direction: "LONG", final_score: 200 }],
      }),
      new Set(),
      inst,
    );
    expect(c.map((x) => x.source)).toEqual(["scanner"]);
    expect(
      planTick(
        state(),
        cfg,
        inputs({
          smartMoney: [{ asset: "ETH", signal_type: "SMART_MONEY", direction: "LONG", confidence: 50 }],
        }),
        inst,
      ).entries,
    ).toEqual([]);
  });
  it("empty state and no signals → nothing; the input state is not modified", () => {
    const s = state([active(0, "ETH", "long")]);
    const before = JSON.stringify(s);
    const p = planTick(s, cfg, inputs({ prices: new Map([["ETH", 2600]]), movers: [imm("SOL")] }), inst);
    expect(JSON.stringify(s)).toBe(before);
    expect(p.slots[0]!.roe_pct).toBeCloseTo(40, 6);
    expect(planTick(state(), cfg, inputs(), inst)).toMatchObject({ exits: [], entries: [] });
  });
  it("a slot whose exit is planned this tick is not refilled in the same tick", () => {
    const s = { ...state([active(0, "ETH", "long")]), slots: [active(0, "ETH", "long")] };
    const one = { ...cfg, max_slots: 1 };
    const p = planTick(s, one, inputs({ dslCloses: new Map([[0, "x"]]), movers: [imm("SOL")] }), inst);
    expect(p.exits).toHaveLength(1);
    expect(p.entries).toEqual([]);
  });
});

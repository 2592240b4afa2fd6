import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  DSL_PRESETS,
  type DslConfigInput,
  dslConfigFromPreset,
  parseDslConfig,
} from "../../src/guard/config.ts";
import { type DslState, evaluateDsl, newDslState, roePct, tierFloorPrice } from "../../src/guard/dsl.ts";

const T0 = 1_700_000_000_000;

function cfg(over: Partial<DslConfigInput> = {}) {
  return parseDslConfig({
    direction: "long",
    leverage: 10,
    phase1_retrace: 0.03,
    phase1_max_breaches: 3,
    phase2_retrace: 0.015,
    phase2_max_breaches: 2,
    breach_decay_mode: "hard",
    breach_interval_ms: 0,
    tiers: [
      { trigger_pct: 10, lock_pct: 5 },
      { trigger_pct: 20, lock_pct: 14 },
      { trigger_pct: 50, lock_pct: 40, retrace: 0.01 },
    ],
    ...over,
  });
}

function st(over: Partial<DslState> = {}, entry = 100): DslState {
  return {
    ...newDslState({
      position_id: "p",
      instrument: "ETH-PERP",
      entry_price: entry,
      position_size: "1",
      nowMs: T0,
    }),
    ...over,
  };
}

describe("DSL phase 1", () => {
  it("tracks the high water and holds below the first trigger", () => {
    const c = cfg();
    const r = evaluateDsl(c, st(), 100.5, T0 + 1);
    expect(r.action).toBe("hold");
    expect(r.state.high_water).toBe(100.5);
    expect(r.phase).toBe(1);
    const r2 = evaluateDsl(c, st({ high_water: 102 }), 101, T0 + 1);
    expect(r2.state.high_water).toBe(102);
  });

  it("counts breaches at or past the retrace floor and closes at the maximum", () => {
    const c = cfg();
    expect(evaluateDsl(c, st(), 98, T0).state.breach_count).toBe(0);
    let s = st();
    const results = [96, 96, 96].map((p, i) => {
      const r = evaluateDsl(c, s, p, T0 + i);
      s = r.state;
      return r;
    });
    expect(results.map((r) => r.action)).toEqual(["hold", "hold", "close"]);
    expect(results[2]!.state.breach_count).toBe(3);
    expect(results[2]!.reason).toContain("Phase 1 close: 3/3 breaches");
    // equality with the floor (97.0) is a breach
    expect(evaluateDsl(c, st(), 97.0, T0).state.breach_count).toBe(1);
  });

  it("uses the absolute floor when it is tighter", () => {
    const r = evaluateDsl(cfg({ phase1_absolute_floor: 98 }), st(), 97.5, T0);
    expect(r.state.breach_count).toBe(1);
    expect(r.effective_floor).toBe(98);
  });

  it("decays breaches: hard resets, soft decrements", () => {
    const hard = evaluateDsl(cfg(), st({ breach_count: 1 }), 99, T0);
    expect(hard.state.breach_count).toBe(0);
    const soft = evaluateDsl(cfg({ breach_decay_mode: "soft" }), st({ breach_count: 2 }), 99, T0);
    expect(soft.state.breach_count).toBe(1);
  });

  it("graduates at the first trigger, not below it, without counting a breach", () => {
    const up = evaluateDsl(cfg(), st(), 101.0, T0);
    expect(up.action).toBe("tier_changed");
    expect(up.tier_index).toBe(0);
    expect(up.state.breach_count).toBe(0);
    expect(up.reason).toContain("Phase 1->2");
    const below = evaluateDsl(cfg(), st(), 100.99, T0);
    expect(below.action).toBe("hold");
    expect(below.tier_index).toBe(-1);
  });

  it("a config without tiers never leaves phase 1; entry must be positive", () => {
    const r = evaluateDsl(cfg({ tiers: [] }), st(), 110, T0);
    expect(r.action).toBe("hold");
    expect(r.tier_index).toBe(-1);
    expect(() => st({}, 0)).toThrow();
    expect(roePct("long", 0, 10, 10)).toBe(0);
  });
});

describe("DSL phase 2", () => {
  it("locks the tier floor and ratchets up through tiers, never down", () => {
    const c = cfg();
    const t0 = evaluateDsl(c, st({ tier_index: 0, high_water: 101.5 }), 101.5, T0);
    expect(t0.tier_floor).toBeCloseTo(100.5, 10);
    expect(evaluateDsl(c, st({ tier_index: 0 }), 102, T0).tier_index).toBe(1);
    expect(evaluateDsl(c, st({ tier_index: 0 }), 105, T0).tier_index).toBe(2);
    expect(evaluateDsl(c, st({ tier_index: 2, high_water: 105 }), 101, T0).tier_index).toBe(2);
    const trail = evaluateDsl(c, st({ tier_index: 2, high_water: 106 }), 105.5, T0);
    expect(trail.trailing_floor).toBeCloseTo(104.94, 10);
  });

  it("closes at a tier's own max_breaches, else the phase-2 default", () => {
    const one = cfg({ tiers: [{ trigger_pct: 10, lock_pct: 5, max_breaches: 1 }] });
    expect(evaluateDsl(one, st({ tier_index: 0, high_water: 101 }), 100, T0).action).toBe("close");
    const c = cfg();
    const a = evaluateDsl(c, st({ tier_index: 0, high_water: 101 }), 100, T0);
    expect(a.action).toBe("hold");
    expect(a.state.breach_count).toBe(1);
    const b = evaluateDsl(c, a.state, 100, T0 + 1);
    expect(b.action).toBe("close");
    expect(b.reason).toContain("Phase 2 close: tier 0, 2/2 breaches");
  });

  it("mirrors everything for a short", () => {
    const c = cfg({
      direction: "short",
      leverage: 7,
      tiers: [
        { trigger_pct: 10, lock_pct: 5 },
        { trigger_pct: 20, lock_pct: 14 },
      ],
    });
    const s0 = st({}, 1000);
    const r = evaluateDsl(c, s0, 990, T0);
    expect(r.state.high_water).toBe(990);
    expect(r.roe_pct).toBeCloseTo(7.0, 10);
    expect(evaluateDsl(c, { ...s0, high_water: 985 }, 985, T0).tier_index).toBe(0);
    expect(tierFloorPrice("short", 1000, 5, 7)).toBeCloseTo(1000 * (1 - 5 / 100 / 7), 10);
    const a = evaluateDsl(c, { ...s0, tier_index: 0, high_water: 985 }, 993, T0);
    expect(a.state.breach_count).toBe(1);
    expect(evaluateDsl(c, a.state, 993, T0 + 1).action).toBe("close");
    const abs = evaluateDsl({ ...c, phase1_absolute_floor: 1010 }, s0, 1015, T0);
    expect(abs.state.breach_count).toBe(1);
  });

  it("takes profit on stagnation only in phase 2, above the minimum ROE, with a stale high water", () => {
    const c = cfg({ stagnation_enabled: true, stagnation_min_roe: 8, stagnation_timeout_ms: 3_600_000 });
    const stale = evaluateDsl(
      c,
      st({ tier_index: 0, high_water: 101.5, high_water_ts: T0 - 3_700_000 }),
      101.5,
      T0,
    );
    expect(stale.action).toBe("close");
    expect(stale.reason).toContain("Stagnation");
    const fresh = evaluateDsl(
      c,
      st({ tier_index: 0, high_water: 101.5, high_water_ts: T0 - 100_000 }),
      101.5,
      T0,
    );
    expect(fresh.action).not.toBe("close");
    const low = evaluateDsl(
      c,
      st({ tier_index: 0, high_water: 101.5, high_water_ts: T0 - 3_700_000 }),
      100.5,
      T0,
    );
    expect(low.action).not.toBe("close");
    const p1 = evaluateDsl(c, st({ high_water: 100.9, high_water_ts: T0 - 9_000_000 }), 100.9, T0);
    expect(p1.action).toBe("hold");
  });

  it("a tier change while under the trailing floor counts no breach that update", () => {
    const r = evaluateDsl(cfg(), st({ tier_index: 0, high_water: 120 }), 102, T0);
    expect(r.action).toBe("tier_changed");
    expect(r.state.breach_count).toBe(0);
  });

  it("walks a long through its lifecycle", () => {
    const c = cfg();
    let s = st();
    const step = (p: number, i: number) => {
      const r = evaluateDsl(c, s, p, T0 + i);
      s = r.state;
      return r;
    };
    expect(step(100.5, 1).phase).toBe(1);
    expect(step(101, 2).tier_index).toBe(0);
    expect(step(102, 3).tier_index).toBe(1);
    const hw = step(103, 4);
    expect(hw.action).toBe("hold");
    expect(hw.state.high_water).toBe(103);
    const b = step(101, 5);
    expect(b.state.breach_count).toBe(1);
    expect(b.effective_floor).toBeCloseTo(101.455, 10);
    expect(step(101, 6).action).toBe("close");
  });
});

describe("DSL presets and validation", () => {
  it("has the moderate and tight presets with their exact tiers", () => {
    expect(DSL_PRESETS.moderate.tiers).toHaveLength(6);
    expect(DSL_PRESETS.moderate.tiers[0].trigger_pct).toBe(10);
    expect(DSL_PRESETS.moderate.tiers.map((t) => [t.trigger_pct, t.lock_pct])).toEqual([
      [10, 5],
      [20, 14],
      [30, 22],
      [50, 40],
      [75, 60],
      [100, 80],
    ]);
    expect(DSL_PRESETS.tight.tiers).toHaveLength(4);
    expect(DSL_PRESETS.tight.stagnation_enabled).toBe(true);
    expect(DSL_PRESETS.tight.tiers[3].max_breaches).toBe(1);
    expect(DSL_PRESETS.tight.tiers.map((t) => [t.trigger_pct, t.lock_pct])).toEqual([
      [10, 5],
      [20, 13],
      [40, 30],
      [75, 64],
    ]);
    expect(DSL_PRESETS.tight.phase1_retrace).toBe(0.05);
    expect(DSL_PRESETS.moderate.phase1_retrace).toBe(0.03);
  });

  it("tight preset floors at entry 100, 10x match the table", () => {
    const floors = DSL_PRESETS.tight.tiers.map((t) => tierFloorPrice("long", 100, t.lock_pct, 10));
    for (const [i, f] of [100.5, 101.3, 103.0, 106.4].entries()) expect(floors[i]).toBeCloseTo(f, 10);
    const shorts = DSL_PRESETS.tight.tiers.map((t) => tierFloorPrice("short", 100, t.lock_pct, 10));
    for (const [i, f] of [99.5, 98.7, 97.0, 93.6].entries()) expect(shorts[i]).toBeCloseTo(f, 10);
  });

  it("a gap straight past several triggers locks the highest tier at once (tight, 105)", () => {
    const c = dslConfigFromPreset("tight", { direction: "long", leverage: 10, breach_interval_ms: 0 });
    const r = evaluateDsl(c, st(), 105, T0);
    expect(r.action).toBe("tier_changed");
    expect(r.tier_index).toBe(2);
    expect(r.effective_floor).toBeCloseTo(103.95, 10);
  });

  it("refuses tiers that do not ascend or lock above their trigger, and non-positive leverage", () => {
    expect(() => cfg({ tiers: [{ trigger_pct: 10, lock_pct: 12 }] })).toThrow(/lock_pct/);
    expect(() =>
      cfg({
        tiers: [
          { trigger_pct: 20, lock_pct: 5 },
          { trigger_pct: 10, lock_pct: 6 },
        ],
      }),
    ).toThrow(/ascend/);
    expect(() => cfg({ leverage: 0 })).toThrow();
    expect(() => dslConfigFromPreset("nope", { direction: "long", leverage: 10 })).toThrow(
      /Available: moderate, tight/,
    );
  });

  it("a short never gets a zero floor (predecessor: entry/leverage 0 breached every tick)", () => {
    const c = cfg({ direction: "short" });
    const r = evaluateDsl(c, st({ tier_index: 0, high_water: 95 }), 96, T0);
    expect(r.effective_floor).toBeGreaterThan(90);
    expect(r.state.breach_count).toBe(0);
  });

  it("never moves the floor against the position (property)", () => {
    fc.assert(
      fc.property(
        fc.constantFrom<"long" | "short">("long", "short"),
        fc.array(fc.double({ min: 80, max: 125, noNaN: true }), { minLength: 1, maxLength: 60 }),
        (direction, prices) => {
          const c = dslConfigFromPreset("tight", { direction, leverage: 10, breach_interval_ms: 0 });
          let s = st();
          let lastFloor = direction === "long" ? -Infinity : Infinity;
          let lastTier = -1;
          for (const [i, p] of prices.entries()) {
            const r = evaluateDsl(c, s, p, T0 + i);
            if (r.action === "close") return;
            expect(r.tier_index).toBeGreaterThanOrEqual(lastTier);
            if (r.effective_floor > 0 && r.phase === 2) {
              if (direction === "long") expect(r.effective_floor).toBeGreaterThanOrEqual(lastFloor - 1e-9);
              else expect(r.effective_floor).toBeLessThanOrEqual(lastFloor + 1e-9);
              lastFloor = r.effective_floor;
            }
            lastTier = r.tier_index;
            s = r.state;
          }
        },
      ),
    );
  });
});

describe("DSL driven by the price stream", () => {
  const c = dslConfigFromPreset("tight", { direction: "long", leverage: 10 }); // breach interval 10 s

  it("counts at most one breach per interval, so a burst of updates is not three breaches", () => {
    let s = st();
    for (let i = 0; i < 20; i++) s = evaluateDsl(c, s, 94, T0 + i * 100).state;
    expect(s.breach_count).toBe(1);
  });

  it("catches a dip between two polls: a position past its floor for 20 s is closed before the next tick", () => {
    // Poll at T0 and T0+60 s would see 100 both times; the stream sees the dip in between.
    const stream = [
      [T0, 100],
      [T0 + 15_000, 94.9],
      [T0 + 25_000, 94.5],
      [T0 + 35_000, 94.6],
      [T0 + 50_000, 100],
    ] as const;
    let s = st();
    const actions = stream.map(([t, p]) => {
      const r = evaluateDsl(c, s, p, t);
      s = r.state;
      return r.action;
    });
    expect(actions.slice(0, 4)).toEqual(["hold", "hold", "hold", "close"]);
    // polling alone at T0 and T0+60 s would have held
    expect(evaluateDsl(c, st(), 100, T0 + 60_000).action).toBe("hold");
  });

  it("a spike between polls raises the high water and the lock", () => {
    let s = st();
    s = evaluateDsl(c, s, 108, T0 + 10_000).state; // +80 % ROE spike, tier 3 (64 % lock)
    expect(s.tier_index).toBe(3);
    const r = evaluateDsl(c, s, 106, T0 + 20_000); // below the 106.4 lock → one breach closes tier 3
    expect(r.action).toBe("close");
  });
});

import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { TunableConfig } from "../../src/review/autotune.ts";
import { readMemory } from "../../src/review/memory.ts";
import { createReviewHook } from "../../src/review/review-hook.ts";
import { type Line, tempDataDir, trip, writeTrades } from "./helpers.ts";

const H = 3_600_000;
const MAR3 = Date.UTC(2026, 2, 3);

function losers(n: number, t0: number): Line[] {
  return Array.from({ length: n }, (_, i) =>
    trip({ entry: 100, exit: 98, source: "scanner", t: t0 + i * H }),
  ).flat();
}

describe("createReviewHook", () => {
  it("runs every 240 ticks, not in between, and not at tick 0", () => {
    const dataDir = tempDataDir();
    writeTrades(dataDir, trip({ entry: 100, exit: 110, source: "scanner", t: MAR3 }));
    const hook = createReviewHook({ dataDir });
    const t = MAR3 + 5 * H; // 05:00, far from the daily slot
    expect(hook.onTick(0, t)).toBeNull();
    expect(hook.onTick(239, t)).toBeNull();
    const run = hook.onTick(240, t);
    expect(run?.reason).toBe("interval");
    expect(run?.howl.reportPath).toBeTruthy();
    expect(run?.judge.path).toBeTruthy();
    expect(hook.onTick(241, t)).toBeNull();
    expect(hook.onTick(480, t)?.reason).toBe("interval");
  });

  it("runs daily at 04:00 UTC, once per day", () => {
    const dataDir = tempDataDir();
    writeTrades(dataDir, trip({ entry: 100, exit: 110, t: MAR3 }));
    const hook = createReviewHook({ dataDir });
    expect(hook.onTick(1, MAR3 + 3 * H)).toBeNull();
    expect(hook.nextDailyMs()).toBe(MAR3 + 4 * H);
    expect(hook.onTick(2, MAR3 + 4 * H - 1)).toBeNull();
    expect(hook.onTick(3, MAR3 + 4 * H + 30_000)?.reason).toBe("daily");
    expect(hook.onTick(4, MAR3 + 4 * H + 90_000)).toBeNull();
    expect(hook.nextDailyMs()).toBe(MAR3 + 28 * H);
    expect(hook.onTick(5, MAR3 + 28 * H)?.reason).toBe("daily");
  });

  it("a failing review is reported, never thrown into the trading loop", () => {
    const dataDir = tempDataDir();
    writeTrades(dataDir, trip({ entry: 100, exit: 110, t: MAR3 }));
    writeFileSync(join(dataDir, "howl"), "a file where the report directory should be");
    const errors: unknown[] = [];
    const hook = createReviewHook({ dataDir, onError: (e) => errors.push(e) });
    const run = hook.onTick(240, MAR3 + 5 * H);
    expect(run).toBeNull();
    expect(errors).toHaveLength(1);
  });

  it("auto-tunes from the window since the last change, logs param_change, and does not ratchet on old trades", () => {
    const dataDir = tempDataDir();
    writeTrades(dataDir, losers(6, MAR3));
    let config: TunableConfig = {
      scanner_score_threshold: 170,
      movers_confidence_threshold: 70,
      daily_loss_limit: 500,
      movers_immediate_auto_entry: true,
      max_same_direction: 2,
    };
    const applied: unknown[] = [];
    const hook = createReviewHook({
      dataDir,
      autoTune: {
        getConfig: () => config,
        apply: (next, changes) => {
          config = next;
          applied.push(changes);
        },
      },
    });
    const first = hook.onTick(240, MAR3 + 10 * H);
    expect(first?.tune?.changes.length).toBeGreaterThan(0);
    expect(config.scanner_score_threshold).toBe(180);
    expect(readMemory({ dataDir, event_type: "param_change" })).toHaveLength(1);
    // Same evidence, a day later (past the cooldown): nothing new closed since the change → no second step.
    const second = hook.onTick(480, MAR3 + 40 * H);
    expect(second?.tune?.changes).toEqual([]);
    expect(config.scanner_score_threshold).toBe(180);
    // Fresh losing evidence after the change may tighten again.
    writeTrades(dataDir, losers(6, MAR3 + 41 * H));
    hook.onTick(720, MAR3 + 60 * H);
    expect(config.scanner_score_threshold).toBe(190);
    expect(applied).toHaveLength(2);
    expect(existsSync(join(dataDir, "memory", "events.jsonl"))).toBe(true);
  });
});

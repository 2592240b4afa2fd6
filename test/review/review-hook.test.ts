import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { TunableConfig } from "../../src/review/autotune.ts";
import { readMemory } from "../../src/review/memory.ts";
import { runReview } from "../../src/review/review-hook.ts";
import { type Line, tempDataDir, trip, writeTrades } from "./helpers.ts";

const H = 3_600_000;
const MAR3 = Date.UTC(2026, 2, 3);

function losers(n: number, t0: number): Line[] {
  return Array.from({ length: n }, (_, i) =>
    trip({ entry: 100, exit: 98, source: "scanner", t: t0 + i * H }),
  ).flat();
}

describe("runReview", () => {
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
    const autoTune = {
      getConfig: () => config,
      apply: (next: TunableConfig, changes: unknown) => {
        config = next;
        applied.push(changes);
      },
    };
    const review = (nowMs: number) => runReview({ dataDir, reason: "interval", nowMs, autoTune });
    const first = review(MAR3 + 10 * H);
    expect(first.tune?.changes.length).toBeGreaterThan(0);
    expect(config.scanner_score_threshold).toBe(180);
    expect(readMemory({ dataDir, event_type: "param_change" })).toHaveLength(1);
    // Same evidence, a day later (past the cooldown): nothing new closed since the change → no second step.
    const second = review(MAR3 + 40 * H);
    expect(second.tune?.changes).toEqual([]);
    expect(config.scanner_score_threshold).toBe(180);
    // Fresh losing evidence after the change may tighten again.
    writeTrades(dataDir, losers(6, MAR3 + 41 * H));
    review(MAR3 + 60 * H);
    expect(config.scanner_score_threshold).toBe(190);
    expect(applied).toHaveLength(2);
    expect(existsSync(join(dataDir, "memory", "events.jsonl"))).toBe(true);
  });
});

import { cpSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { migratePredecessorKv } from "../../src/engine/predecessor-db.ts";
import { StateStore } from "../../src/engine/state-store.ts";
import { statusFromKv } from "../../src/engine/status.ts";
import { migratePredecessorWolfState, parseAnyWolfState } from "../../src/wolf/predecessor.ts";
import { loadWolfState, statePath } from "../../src/wolf/state.ts";

const FIXTURE = join(import.meta.dirname, "../fixtures/predecessor-data");

function copyFixture(): string {
  const dir = mkdtempSync(join(tmpdir(), "predecessor-"));
  cpSync(FIXTURE, dir, { recursive: true });
  return dir;
}

describe("a predecessor DATA_DIR", () => {
  it("its WOLF state is read as is: slots, sides, prices, counters", () => {
    const raw = JSON.parse(readFileSync(join(FIXTURE, "wolf", "state.json"), "utf8"));
    const st = parseAnyWolfState(raw, Date.UTC(2026, 0, 2))!;
    expect(st).toMatchObject({ version: 1, tick_count: 1437, total_trades: 57, total_pnl: "1934.27" });
    expect(st.daily_pnl).toBe("128.44");
    expect(st.slots.map((s) => [s.instrument, s.coin, s.side, s.entry_price, s.entry_size])).toEqual([
      ["BTC-PERP", "BTC", "long", "97412", "0.0342"],
      ["ETH-PERP", "ETH", "short", "3481.6", "0.957"],
      ["SOL-PERP", "SOL", "long", "188.42", "17.69"],
    ]);
    expect(st.slots[0]).toMatchObject({ status: "active", entry_source: "movers_immediate", leverage: 1 });
    expect(st.slots[1]!.roe_pct).toBe(-6.12);
  });

  it("its WOLF state is migrated once, the original kept beside, byte for byte", () => {
    const dir = copyFixture();
    expect(() => loadWolfState(dir)).toThrow(/is not a WOLF state/);
    const kept = migratePredecessorWolfState(dir, Date.UTC(2026, 0, 2))!;
    expect(kept).toBe(join(dir, "wolf", "state.predecessor.json"));
    expect(readFileSync(kept)).toEqual(readFileSync(join(FIXTURE, "wolf", "state.json")));
    const loaded = loadWolfState(dir);
    expect(loaded.kind === "ok" && loaded.state.tick_count).toBe(1437);
    expect(migratePredecessorWolfState(dir, Date.UTC(2026, 0, 2))).toBeNull(); // nothing left to do
    expect(JSON.parse(readFileSync(statePath(dir), "utf8")).version).toBe(1);
  });

  it("its cli/state.db is served as is, then migrated so the engine can write it", () => {
    const dir = copyFixture();
    const path = join(dir, "cli", "state.db");
    const before = new StateStore(path);
    expect(statusFromKv(before.readAll())).toMatchObject({
      status: "running",
      engine: "engine_mm",
      tick_count: 812,
      position_qty: 0.42,
    });
    expect(() => before.save({ tick_count: 813 })).toThrow(/NOT NULL/);
    before.close();

    const kept = migratePredecessorKv(path)!;
    expect(readFileSync(kept).length).toBeGreaterThan(0);
    const after = new StateStore(path);
    after.save({ tick_count: 813 });
    const kv = after.readAll();
    after.close();
    expect(JSON.parse(kv.tick_count!)).toBe(813);
    expect(JSON.parse(kv.positions!).agents.engine_mm["ETH-PERP"]).toMatchObject({
      avg_entry_price: "3479.10",
      net_qty: "0.42",
    });
    expect(migratePredecessorKv(path)).toBeNull();
  });
});

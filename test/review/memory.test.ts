import { appendFileSync, existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { UserError } from "../../src/core/errors.ts";
import {
  appendMemoryEvent,
  lastEventMs,
  MEMORY_EVENT_TYPES,
  memoryEventsPath,
  memoryLines,
  readMemory,
  searchMemory,
  sessionMemoryEvent,
} from "../../src/review/memory.ts";
import { foldPlaybook, playbookPath, recordPlaybookTrades } from "../../src/review/playbook.ts";
import { tempDataDir } from "./helpers.ts";

function seed(dataDir: string, n: number) {
  for (let i = 0; i < n; i++) {
    appendMemoryEvent(dataDir, {
      event_type: MEMORY_EVENT_TYPES[i % MEMORY_EVENT_TYPES.length]!,
      timestamp_ms: 1000 + i,
      payload: { i },
      summary: `event ${i}`,
    });
  }
}

describe("memory events", () => {
  it("recent: newest first, default limit 20", () => {
    const dataDir = tempDataDir();
    seed(dataDir, 30);
    const events = readMemory({ dataDir });
    expect(events).toHaveLength(20);
    expect(events[0]!.summary).toBe("event 29");
    expect(readMemory({ dataDir, limit: 3 }).map((e) => e.payload.i)).toEqual([29, 28, 27]);
  });

  it("filters by event type", () => {
    const dataDir = tempDataDir();
    seed(dataDir, 12);
    const changes = readMemory({ dataDir, event_type: "param_change" });
    expect(changes.map((e) => e.event_type)).toEqual(["param_change", "param_change"]);
    expect(lastEventMs(dataDir, "param_change")).toBe(1006);
    expect(lastEventMs(dataDir, "session_end")).toBe(1011);
  });

  it("refuses unknown query or event types with a clear error", () => {
    const dataDir = tempDataDir();
    expect(() => readMemory({ dataDir, query_type: "all" as "recent" })).toThrow(UserError);
    expect(() => readMemory({ dataDir, event_type: "nope" as "param_change" })).toThrow(/unknown event_type/);
    expect(() => readMemory({ dataDir, limit: 0 })).toThrow(/limit/);
  });

  it("refuses to write an event of an unknown type", () => {
    expect(() =>
      appendMemoryEvent(tempDataDir(), {
        event_type: "gossip" as "param_change",
        timestamp_ms: 1,
        payload: {},
        summary: "",
      }),
    ).toThrow();
  });

  it("a corrupt line is skipped, not fatal", () => {
    const dataDir = tempDataDir();
    seed(dataDir, 2);
    appendFileSync(memoryEventsPath(dataDir), "{broken\n");
    seed(dataDir, 1);
    expect(readMemory({ dataDir })).toHaveLength(3);
  });
});

describe("playbook", () => {
  const trade = (id: string, pnl: string, roe = 1) => ({
    id,
    instrument: "ETH-PERP",
    source: "scanner",
    pnl,
    roe_pct: roe,
    holding_ms: 1000,
  });

  it("folds each trade id once", () => {
    const once = foldPlaybook(
      { version: 1, entries: {}, counted_ids: [] },
      [trade("a", "2"), trade("b", "-1")],
      5,
    );
    expect(once.added).toBe(2);
    const twice = foldPlaybook(once.playbook, [trade("a", "2"), trade("b", "-1")], 6);
    expect(twice.added).toBe(0);
    expect(twice.playbook.entries["ETH-PERP:scanner"]).toMatchObject({
      trade_count: 2,
      win_count: 1,
      total_pnl: "1",
      win_rate: 50,
      avg_pnl: 0.5,
    });
  });

  it("keeps exact decimal totals over many trades", () => {
    const trades = Array.from({ length: 10 }, (_, i) => trade(`t${i}`, "0.1"));
    const pb = foldPlaybook({ version: 1, entries: {}, counted_ids: [] }, trades, 1).playbook;
    expect(pb.entries["ETH-PERP:scanner"]!.total_pnl).toBe("1");
  });

  it("readMemory playbook returns the entries keyed instrument:source", () => {
    const dataDir = tempDataDir();
    expect(readMemory({ dataDir, query_type: "playbook" })).toEqual({});
    recordPlaybookTrades(dataDir, [trade("a", "3", 2)], 9);
    expect(Object.keys(readMemory({ dataDir, query_type: "playbook" }))).toEqual(["ETH-PERP:scanner"]);
  });

  it("a corrupt playbook is moved aside (kept), reported, and rebuilt", () => {
    const dataDir = tempDataDir();
    recordPlaybookTrades(dataDir, [trade("a", "3")], 9);
    writeFileSync(playbookPath(dataDir), "{not json");
    const r = recordPlaybookTrades(dataDir, [trade("a", "3")], 10);
    expect(r.quarantined).toContain("playbook.json.corrupt-");
    expect(existsSync(r.quarantined!)).toBe(true);
    expect(r.added).toBe(1);
    expect(readdirSync(join(dataDir, "memory")).some((f) => f.startsWith("playbook.json.corrupt-"))).toBe(
      true,
    );
  });
});

describe("session events", () => {
  it("builds session_start / session_end with the standard payload", () => {
    const e = sessionMemoryEvent(
      "session_end",
      { tick_count: 42, total_pnl: "-12.345678", active_slots: 1, total_trades: 7 },
      99,
    );
    expect(e).toEqual({
      event_type: "session_end",
      timestamp_ms: 99,
      payload: { tick_count: 42, total_pnl: -12.3457, active_slots: 1, total_trades: 7 },
      summary: "Session end: 42 ticks, PnL $-12.35, 7 trades, 1 open",
    });
    const dataDir = tempDataDir();
    appendMemoryEvent(
      dataDir,
      sessionMemoryEvent(
        "session_start",
        { tick_count: 0, total_pnl: 0, active_slots: 0, total_trades: 0 },
        1,
      ),
    );
    expect(readMemory({ dataDir, event_type: "session_start" })[0]!.summary).toBe(
      "Session start: 0 ticks, PnL $+0.00, 0 trades, 0 open",
    );
  });
});

describe("hl memory search and list", () => {
  it("search finds the text in summaries and payloads, any case, newest first", () => {
    const dataDir = tempDataDir();
    appendMemoryEvent(dataDir, {
      event_type: "param_change",
      timestamp_ms: 1,
      payload: { key: "leverage" },
      summary: "x",
    });
    appendMemoryEvent(dataDir, {
      event_type: "howl_review",
      timestamp_ms: 2,
      payload: {},
      summary: "HOWL: Leverage too high",
    });
    appendMemoryEvent(dataDir, {
      event_type: "notable_trade",
      timestamp_ms: 3,
      payload: {},
      summary: "ETH long closed",
    });
    expect(searchMemory(dataDir, "LEVERAGE").map((e) => e.timestamp_ms)).toEqual([2, 1]);
    expect(searchMemory(dataDir, "leverage", 1).map((e) => e.timestamp_ms)).toEqual([2]);
    expect(() => searchMemory(dataDir, " ")).toThrow(UserError);
  });

  it("lists one line per event with its UTC time and type", () => {
    expect(memoryLines([])).toBe("No memory events yet.\n");
    expect(
      memoryLines([
        {
          event_type: "howl_review",
          timestamp_ms: Date.UTC(2026, 0, 1, 12, 0, 5),
          payload: {},
          summary: "s",
        },
      ]),
    ).toBe("2026-01-01 12:00:05 UTC  howl_review  s\n");
  });
});

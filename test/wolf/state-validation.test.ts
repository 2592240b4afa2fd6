import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseAnyWolfState } from "../../src/wolf/predecessor.ts";
import { emptySlot, loadWolfState, statePath } from "../../src/wolf/state.ts";

/**
 * Every check the WOLF state file is read with: each malformed variant below is refused (by the
 * trader's loadWolfState, with the field named, and by the readers' parseAnyWolfState), and each
 * well-formed variant is read as this project's state.
 */

const NOW = Date.UTC(2026, 0, 2);

function validState(): Record<string, unknown> {
  return {
    version: 1,
    preset: "default",
    config: { max_slots: 2, nested: { a: [1] } },
    tick_count: 12,
    slots: [
      {
        slot_id: 0,
        status: "active",
        instrument: "ETH-PERP",
        coin: "ETH",
        side: "long",
        entry_source: "scanner",
        entry_signal_score: 180.5,
        entry_price: "3000.5",
        entry_size: "0.5",
        entry_fee: "0.6",
        margin_allocated: "500",
        leverage: 3,
        current_price: "3010",
        roe_pct: 1.9,
        high_water_roe: 2.5,
        dsl_phase: 1,
        dsl_tier: -1,
        dsl_position_id: "wolf-0-1",
        dsl_preset: "tight",
        dsl_leverage: 3,
        dsl_breaches: 0,
        opened_at_ms: 1,
        last_progress_ms: 2,
        last_signal_seen_ms: 3,
        signal_disappeared_ms: 0,
        exit: {
          reason: "dsl",
          requested_at_ms: 5,
          filled_size: "0.1",
          filled_notional: "301",
          fees: "0.1",
          attempts: 1,
        },
        backstop: {
          status: "resting",
          cloid: "0xabc",
          oid: 7,
          triggerPx: "2900",
          size: "0.5",
          updatedMs: 4,
          message: "ok",
        },
        pending_order: {
          cloid: `0x${"ab".repeat(16)}`,
          sent_at_ms: 1,
          expires_after_ms: 2,
          order: { a: 1 },
        },
      },
      emptySlot(1),
    ],
    closed_slots: [
      {
        slot_id: 1,
        instrument: "BTC-PERP",
        side: "short",
        entry_size: "0.01",
        entry_price: "100000",
        exit_price: "99000",
        realized_pnl: "10",
        roe_pct: 3.3,
        close_reason: "dsl",
        dsl_phase: 2,
        opened_at_ms: 1,
        closed_at_ms: 2,
        entry_source: "movers",
        fees: "0.5",
      },
    ],
    daily_pnl: -1.5,
    daily_loss_triggered: false,
    day: "2026-01-01",
    total_pnl: "12.25",
    total_trades: 3,
    start_ms: 1,
    updated_ms: 2,
    last_review_tick: 0,
    last_review_day: "",
    price_stream: "ok",
    price_stream_coins: ["ETH"],
    scan: { phase: "first_scan", series_read: 3, series_total: 120, last_scan_ms: null, signals: 0 },
  };
}

type Edit = [path: string, value: unknown];
const DELETE = Symbol("delete");

/** A copy of `state` with the value at a dotted path replaced (or deleted). */
function edited(state: Record<string, unknown>, [path, value]: Edit): Record<string, unknown> {
  const copy = structuredClone(state);
  const keys = path.split(".");
  let at = copy as Record<string, unknown>;
  for (const k of keys.slice(0, -1)) at = at[k] as Record<string, unknown>;
  const last = keys.at(-1)!;
  if (value === DELETE) delete at[last];
  else at[last] = value;
  return copy;
}

const S0 = "slots.0";
const MALFORMED: Edit[] = [
  ["version", 2],
  ["version", "1"],
  ["version", DELETE],
  ["preset", 1],
  ["preset", DELETE],
  ["config", []],
  ["config", null],
  ["config", "x"],
  ["tick_count", -1],
  ["tick_count", 1.5],
  ["tick_count", "3"],
  ["tick_count", 2 ** 53],
  ["slots", {}],
  ["slots", DELETE],
  ["slots", [null]],
  ["closed_slots", null],
  ["daily_pnl", true],
  ["daily_pnl", null],
  ["daily_pnl", DELETE],
  ["daily_loss_triggered", "false"],
  ["day", DELETE],
  ["day", 20260101],
  ["total_pnl", {}],
  ["total_trades", -1],
  ["total_trades", 2.5],
  ["start_ms", "0"],
  ["updated_ms", DELETE],
  ["last_review_tick", 1.5],
  ["last_review_day", null],
  ["price_stream", "down"],
  ["price_stream", null],
  ["price_stream_coins", [1]],
  ["price_stream_coins", "ETH"],
  ["scan.phase", "scanning"],
  ["scan.series_read", -1],
  ["scan.series_total", 1.5],
  ["scan.last_scan_ms", DELETE],
  ["scan.signals", "0"],
  [`${S0}.slot_id`, -1],
  [`${S0}.slot_id`, 0.5],
  [`${S0}.slot_id`, DELETE],
  [`${S0}.status`, "open"],
  [`${S0}.instrument`, null],
  [`${S0}.coin`, DELETE],
  [`${S0}.side`, "up"],
  [`${S0}.side`, null],
  [`${S0}.entry_source`, 1],
  [`${S0}.entry_signal_score`, "1"],
  [`${S0}.entry_price`, 3000.5],
  [`${S0}.entry_size`, DELETE],
  [`${S0}.entry_fee`, 0],
  [`${S0}.margin_allocated`, null],
  [`${S0}.leverage`, "3"],
  [`${S0}.current_price`, 1],
  [`${S0}.roe_pct`, null],
  [`${S0}.high_water_roe`, DELETE],
  [`${S0}.dsl_phase`, 3],
  [`${S0}.dsl_phase`, -1],
  [`${S0}.dsl_phase`, 1.5],
  [`${S0}.dsl_tier`, 0.5],
  [`${S0}.dsl_position_id`, 1],
  [`${S0}.dsl_preset`, 1],
  [`${S0}.dsl_preset`, null],
  [`${S0}.dsl_leverage`, 0],
  [`${S0}.dsl_leverage`, -2],
  [`${S0}.dsl_breaches`, -1],
  [`${S0}.dsl_breaches`, 0.5],
  [`${S0}.opened_at_ms`, "1"],
  [`${S0}.last_progress_ms`, DELETE],
  [`${S0}.last_signal_seen_ms`, null],
  [`${S0}.signal_disappeared_ms`, true],
  [`${S0}.exit`, DELETE],
  [`${S0}.exit`, "dsl"],
  [`${S0}.exit.reason`, 1],
  [`${S0}.exit.requested_at_ms`, "5"],
  [`${S0}.exit.filled_size`, 0.1],
  [`${S0}.exit.filled_notional`, DELETE],
  [`${S0}.exit.fees`, null],
  [`${S0}.exit.attempts`, 1.5],
  [`${S0}.backstop`, null],
  [`${S0}.backstop.status`, "placed"],
  [`${S0}.backstop.cloid`, 1],
  [`${S0}.backstop.oid`, 1.5],
  [`${S0}.backstop.oid`, DELETE],
  [`${S0}.backstop.triggerPx`, 2900],
  [`${S0}.backstop.size`, DELETE],
  [`${S0}.backstop.updatedMs`, "4"],
  [`${S0}.backstop.message`, null],
  [`${S0}.pending_order`, "x"],
  [`${S0}.pending_order.cloid`, "0xabc"],
  [`${S0}.pending_order.cloid`, `0x${"ag".repeat(16)}`],
  [`${S0}.pending_order.cloid`, `0x${"ab".repeat(16)}0`],
  [`${S0}.pending_order.sent_at_ms`, DELETE],
  [`${S0}.pending_order.expires_after_ms`, "2"],
  [`${S0}.pending_order.order`, []],
  [`${S0}.pending_order.order`, null],
  ["closed_slots.0.slot_id", 0.5],
  ["closed_slots.0.instrument", DELETE],
  ["closed_slots.0.side", ""],
  ["closed_slots.0.entry_size", 1],
  ["closed_slots.0.entry_price", null],
  ["closed_slots.0.exit_price", DELETE],
  ["closed_slots.0.realized_pnl", 10],
  ["closed_slots.0.roe_pct", "3"],
  ["closed_slots.0.close_reason", null],
  ["closed_slots.0.dsl_phase", 1.5],
  ["closed_slots.0.opened_at_ms", DELETE],
  ["closed_slots.0.closed_at_ms", "2"],
  ["closed_slots.0.entry_source", 0],
  ["closed_slots.0.fees", DELETE],
];

const WELL_FORMED: Edit[] = [
  ["price_stream", DELETE],
  ["price_stream", "degraded"],
  ["price_stream_coins", DELETE],
  ["price_stream_coins", []],
  ["scan", DELETE],
  ["scan.last_scan_ms", 1_700_000_000_000],
  ["config", {}],
  ["slots", []],
  ["closed_slots", []],
  ["daily_pnl", "-1.5"],
  ["total_pnl", 12.25],
  [`${S0}.side`, ""],
  [`${S0}.side`, "short"],
  [`${S0}.status`, "pending"],
  [`${S0}.status`, "closing"],
  [`${S0}.dsl_phase`, 2],
  [`${S0}.dsl_tier`, -5],
  [`${S0}.dsl_preset`, DELETE],
  [`${S0}.dsl_leverage`, DELETE],
  [`${S0}.dsl_leverage`, 0.5],
  [`${S0}.dsl_breaches`, DELETE],
  [`${S0}.exit`, null],
  [`${S0}.backstop`, DELETE],
  [`${S0}.backstop.status`, "refused"],
  [`${S0}.backstop.oid`, null],
  [`${S0}.backstop.message`, DELETE],
  [`${S0}.pending_order`, null],
  [`${S0}.pending_order`, DELETE],
  [`${S0}.pending_order.cloid`, `0x${"AB".repeat(16)}`],
  [`${S0}.pending_order.order`, {}],
  ["closed_slots.0.slot_id", -1],
  ["closed_slots.0.dsl_phase", 7],
];

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function dataDirWith(state: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), "wolf-state-check-"));
  dirs.push(dir);
  mkdirSync(join(dir, "wolf"));
  writeFileSync(statePath(dir), JSON.stringify(state));
  return dir;
}

const label = ([path, value]: Edit) =>
  `${path} ${value === DELETE ? "missing" : `= ${JSON.stringify(value)}`}`;

describe("the WOLF state file's checks", () => {
  it("a complete, well-formed state is read, money as decimal strings", () => {
    const state = parseAnyWolfState(validState(), NOW)!;
    expect(state).not.toBeNull();
    expect(state.daily_pnl).toBe("-1.5");
    expect(state.total_pnl).toBe("12.25");
    const loaded = loadWolfState(dataDirWith(validState()));
    expect(loaded.kind === "ok" && loaded.state).toEqual(state);
  });

  it.each(MALFORMED.map((e) => [label(e), e] as const))("refuses %s", (_, edit) => {
    const raw = edited(validState(), edit);
    expect(parseAnyWolfState(raw, NOW)).toBeNull();
    const field = edit[0].replace(/\.(exit|backstop|pending_order)\..*$/, ".$1");
    expect(() => loadWolfState(dataDirWith(raw))).toThrow(
      new RegExp(`is not a WOLF state \\(${field.split(".")[0]}`),
    );
  });

  it.each(WELL_FORMED.map((e) => [label(e), e] as const))("accepts %s", (_, edit) => {
    const state = parseAnyWolfState(edited(validState(), edit), NOW);
    expect(state?.version).toBe(1);
  });

  it("keys it does not know are dropped, the known ones kept as read", () => {
    const raw = validState();
    raw.extra = 1;
    (raw.slots as Record<string, unknown>[])[0]!.extra = 2;
    const state = parseAnyWolfState(raw, NOW)! as unknown as Record<string, unknown>;
    expect(state.extra).toBeUndefined();
    expect((state.slots as Record<string, unknown>[])[0]!.extra).toBeUndefined();
    expect(state.config).toEqual({ max_slots: 2, nested: { a: [1] } });
    expect((state.slots as Record<string, unknown>[])[1]).toEqual(
      (validState().slots as Record<string, unknown>[])[1],
    );
  });

  it("the field at fault is named", () => {
    const raw = edited(validState(), [`${S0}.dsl_phase`, 3]);
    expect(() => loadWolfState(dataDirWith(raw))).toThrow(/is not a WOLF state \(slots\.0\.dsl_phase: /);
  });
});

function predecessorState(): Record<string, unknown> {
  return {
    slots: [
      {
        slot_id: 0,
        status: "active",
        instrument: "BTC-PERP",
        direction: "long",
        entry_source: "movers",
        entry_signal_score: 80,
        entry_price: 100,
        entry_size: 2,
        margin_allocated: 50,
        current_price: 101,
        current_roe: 4,
        high_water_roe: 5,
        last_progress_ts: 10,
        entry_ts: 5,
        last_signal_seen_ts: 20,
        signal_disappeared_ts: 0,
        close_pnl: 0,
      },
    ],
    tick_count: 9,
    start_ts: 1,
    daily_pnl: 1.25,
    daily_loss_triggered: false,
    total_trades: 4,
    total_pnl: 7.5,
    other: "kept aside",
  };
}

describe("the predecessor's WOLF state file's checks", () => {
  it("is read with its defaults for what it leaves out", () => {
    const raw = predecessorState();
    for (const k of [
      "tick_count",
      "start_ts",
      "daily_pnl",
      "daily_loss_triggered",
      "total_trades",
      "total_pnl",
    ])
      delete raw[k];
    const slot = (raw.slots as Record<string, unknown>[])[0]!;
    for (const k of ["current_price", "last_progress_ts", "last_signal_seen_ts", "entry_source"])
      delete slot[k];
    const state = parseAnyWolfState(raw, NOW)!;
    expect(state).toMatchObject({
      tick_count: 0,
      daily_pnl: "0",
      total_pnl: "0",
      total_trades: 0,
      start_ms: NOW,
    });
    expect(state.slots[0]).toMatchObject({
      status: "active",
      side: "long",
      entry_price: "100",
      current_price: "100",
      last_progress_ms: 5,
      entry_source: "",
      leverage: 4,
    });
  });

  const malformed: Edit[] = [
    ["slots", DELETE],
    ["slots", {}],
    ["slots.0.slot_id", -1],
    ["slots.0.slot_id", 1.5],
    ["slots.0.slot_id", DELETE],
    ["slots.0.status", DELETE],
    ["slots.0.status", 1],
    ["slots.0.instrument", 1],
    ["slots.0.direction", null],
    ["slots.0.entry_source", 1],
    ["slots.0.entry_signal_score", "80"],
    ["slots.0.entry_price", "100"],
    ["slots.0.entry_size", null],
    ["slots.0.margin_allocated", "50"],
    ["slots.0.current_price", "101"],
    ["slots.0.current_roe", "4"],
    ["slots.0.high_water_roe", null],
    ["slots.0.last_progress_ts", "10"],
    ["slots.0.entry_ts", "5"],
    ["slots.0.last_signal_seen_ts", null],
    ["slots.0.signal_disappeared_ts", "0"],
    ["tick_count", -1],
    ["tick_count", 0.5],
    ["start_ts", "1"],
    ["daily_pnl", "1.25"],
    ["daily_loss_triggered", 0],
    ["total_trades", -1],
    ["total_trades", 1.5],
    ["total_pnl", null],
  ];
  it.each(malformed.map((e) => [label(e), e] as const))("refuses %s", (_, edit) => {
    expect(parseAnyWolfState(edited(predecessorState(), edit), NOW)).toBeNull();
  });

  it("a file with a version is never read as the predecessor's", () => {
    expect(parseAnyWolfState({ ...predecessorState(), version: 0 }, NOW)).toBeNull();
  });
});

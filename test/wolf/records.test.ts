import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readJournal } from "../../src/review/journal.ts";
import { readMemory } from "../../src/review/memory.ts";
import { buildWolfConfig } from "../../src/wolf/config.ts";
import { WolfRunner } from "../../src/wolf/runner.ts";
import { FakePort } from "./fake-port.ts";

/** Every way a WOLF slot closes leaves one journal entry; sessions and big trades are remembered. */
async function setup() {
  const port = new FakePort({ ETH: 2500, SOL: 100, BTC: 60000 });
  const dataDir = mkdtempSync(join(tmpdir(), "wolf-records-"));
  const config = buildWolfConfig("default", {}, { candle_refresh_s: 0 });
  const runner = await WolfRunner.open({ port, dataDir, preset: "default", config, log: () => undefined });
  // Two baseline ticks, then ETH pumps and the third tick enters it.
  await runner.tick();
  port.clock += 60_000;
  await runner.tick();
  port.clock += 60_000;
  port.pump("ETH");
  await runner.tick();
  expect(runner.state.slots[0]!.status).toBe("active");
  return { port, dataDir, runner };
}

describe("WOLF journal and memory", () => {
  it("a trailing-stop close writes one entry with the contract's fields, and a notable trade", async () => {
    const { port, dataDir, runner } = await setup();
    const entry = Number(runner.state.slots[0]!.entry_price);
    port.clock += 5_000;
    port.setPrice("ETH", entry * 1.08);
    port.clock += 5_000;
    port.setPrice("ETH", entry * 1.05);
    await runner.close();
    const closed = runner.state.closed_slots.at(-1)!;
    const journal = readJournal({ dataDir });
    expect(journal).toHaveLength(1);
    const e = journal[0]!;
    expect(e).toMatchObject({
      instrument: "ETH-PERP",
      direction: "long",
      entry_source: "movers_immediate",
      close_reason: closed.close_reason,
      pnl: closed.realized_pnl,
      exit_price: closed.exit_price,
      size: closed.entry_size,
      roe_pct: closed.roe_pct,
    });
    expect(e.entry_reasoning).toMatch(/^Long ETH-PERP on an immediate-mover signal/);
    expect(e.exit_reasoning).toMatch(/^Trailing stop closed the position/);
    expect(["good", "fair"]).toContain(e.signal_quality);
    expect(e.peak_roe_pct).toBeGreaterThanOrEqual(e.roe_pct);
    // +50 % ROE on a $3,333 slot is far above a tenth of the margin
    const notable = readMemory({ dataDir, event_type: "notable_trade" });
    expect(notable).toHaveLength(1);
    expect(notable[0]!.payload).toMatchObject({ entry_id: e.entry_id, close_reason: closed.close_reason });
  });

  it("a hard stop and a position closed outside our orders each write one entry", async () => {
    const { port, dataDir, runner } = await setup();
    await runner.exitSlot(0, "hard_stop: ROE -6.0%");
    expect(readJournal({ dataDir })[0]).toMatchObject({ close_reason: "hard_stop: ROE -6.0%" });
    expect(readJournal({ dataDir })[0]!.exit_reasoning).toMatch(/^Hard stop hit/);
    // a second position, then closed by hand on the exchange (e.g. `hl close`)
    port.clock += 60_000;
    port.pump("ETH");
    await runner.tick();
    const slot = runner.state.slots.find((s) => s.status === "active")!;
    port.pos.delete("ETH");
    port.fills.push({
      coin: "ETH",
      side: "sell",
      size: slot.entry_size,
      price: "2400",
      fee: "1",
      time: port.clock,
      oid: "by-hand",
    });
    await runner.reconcile();
    await runner.close();
    const journal = readJournal({ dataDir });
    expect(journal).toHaveLength(2);
    expect(journal[0]).toMatchObject({ exit_price: "2400" });
    expect(journal[0]!.close_reason).toContain("no position on the exchange");
  });

  it("remembers the session's start and end", async () => {
    const { dataDir, runner } = await setup();
    await runner.close();
    const start = readMemory({ dataDir, event_type: "session_start" });
    const end = readMemory({ dataDir, event_type: "session_end" });
    expect(start).toHaveLength(1);
    expect(start[0]!.payload).toMatchObject({ tick_count: 0, active_slots: 0, total_trades: 0 });
    expect(end).toHaveLength(1);
    expect(end[0]!.payload).toMatchObject({ tick_count: 3, active_slots: 1, total_trades: 1 });
    expect(end[0]!.summary).toMatch(/^Session end: 3 ticks/);
  });
});

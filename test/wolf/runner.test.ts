import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { dec } from "../../src/core/decimal.ts";
import { loadGuard } from "../../src/guard/store.ts";
import { buildWolfConfig, type WolfConfigInput } from "../../src/wolf/config.ts";
import { type ReviewContext, WolfRunner } from "../../src/wolf/runner.ts";
import { dslDir, loadWolfState, statePath, tradesPath } from "../../src/wolf/state.ts";
import { wolfStatus, wolfStatusText } from "../../src/wolf/status.ts";
import { readTrades } from "../../src/wolf/trades.ts";
import { FakePort } from "./fake-port.ts";

const quiet = (l: string) => (process.env.WOLF_TEST_LOG ? console.log(l) : undefined);

async function setup(extra: WolfConfigInput = {}, port = new FakePort({ ETH: 2500, SOL: 100, BTC: 60000 })) {
  const dataDir = mkdtempSync(join(tmpdir(), "wolf-"));
  const config = buildWolfConfig("default", {}, { candle_refresh_s: 0, ...extra });
  const reviews: ReviewContext[] = [];
  const open = () =>
    WolfRunner.open({
      port,
      dataDir,
      preset: "default",
      config,
      log: quiet,
      onReview: (c) => void reviews.push(c),
    });
  const runner = await open();
  return { port, dataDir, runner, reviews, open, config };
}

/** Two baseline ticks, then ETH pumps and the third tick enters it. */
async function enterEth(r: WolfRunner, port: FakePort) {
  await r.tick();
  port.clock += 60_000;
  await r.tick();
  port.clock += 60_000;
  port.pump("ETH");
  await r.tick();
}

describe("WOLF runner on a fake exchange", () => {
  it("a mover opens a slot; state.json, trades.jsonl and the guard file agree with the exchange", async () => {
    const { port, dataDir, runner } = await setup();
    await enterEth(runner, port);
    const slot = runner.state.slots[0]!;
    expect(slot).toMatchObject({
      status: "active",
      coin: "ETH",
      side: "long",
      entry_source: "movers_immediate",
      dsl_phase: 1,
    });
    const pos = (await port.positions())[0]!;
    expect(pos.coin).toBe("ETH");
    expect(slot.entry_size).toBe(pos.szi);
    // sized to margin × leverage / mid, rounded down to the asset's size decimals
    expect(dec(slot.entry_size).times(slot.entry_price).toNumber()).toBeLessThanOrEqual(33_334);
    expect(slot.entry_size.split(".")[1]?.length ?? 0).toBeLessThanOrEqual(3);
    const saved = loadWolfState(dataDir);
    expect(saved.kind === "ok" && saved.state.slots[0]!.entry_size).toBe(slot.entry_size);
    const trades = readTrades(dataDir);
    expect(trades).toHaveLength(1);
    expect(trades[0]).toMatchObject({
      instrument: "ETH-PERP",
      side: "buy",
      quantity: pos.szi,
      strategy: "wolf",
      meta: "entry:movers_immediate",
    });
    expect(typeof trades[0]!.price).toBe("string");
    expect(Number(trades[0]!.fee)).toBeGreaterThan(0);
    // the guard exists on disk from the moment the position opened, under a per-position id
    const g = loadGuard(dslDir(dataDir), slot.dsl_position_id);
    expect(g.kind).toBe("ok");
    expect(slot.dsl_position_id).toBe(`wolf-0-${slot.opened_at_ms}`);
    expect(runner.state.total_trades).toBe(1);
    await runner.close();
  });

  it("a price crossing the floor between two ticks closes the position from the stream", async () => {
    const { port, dataDir, runner } = await setup();
    await enterEth(runner, port);
    const entry = Number(runner.state.slots[0]!.entry_price);
    port.clock += 5_000;
    port.setPrice("ETH", entry * 1.08); // +80 % ROE → tier 3 (lock 64 %, one breach closes)
    port.clock += 5_000;
    port.setPrice("ETH", entry * 1.05); // below the 106.4 % lock, before any tick
    await runner.close(); // waits for the queued stream exit
    expect(runner.state.slots[0]!.status).toBe("empty");
    const closed = runner.state.closed_slots.at(-1)!;
    expect(closed.close_reason).toMatch(/^dsl_close: Phase 2 close: tier 3/);
    expect(closed.dsl_phase).toBe(2);
    expect(Number(closed.realized_pnl)).toBeGreaterThan(0);
    expect(await port.positions()).toEqual([]);
    const trades = readTrades(dataDir);
    expect(trades).toHaveLength(2);
    expect(trades[1]).toMatchObject({ side: "sell", quantity: closed.entry_size });
    expect(trades[0]!.oid).not.toBe(trades[1]!.oid);
    expect(runner.state.total_trades).toBe(2);
    expect(runner.state.tick_count).toBe(3);
  });

  it("exits only count as closed on a confirmed fill; partial fills are retried with the real sizes (B2, B6)", async () => {
    const { port, dataDir, runner } = await setup();
    await enterEth(runner, port);
    const size = runner.state.slots[0]!.entry_size;
    port.fillRatio = 0;
    await runner.exitSlot(0, "manual");
    expect(runner.state.slots[0]!.status).toBe("closing");
    expect(runner.state.closed_slots).toEqual([]);
    port.fillRatio = 0.5;
    await runner.exitSlot(0, "manual");
    const half = runner.state.slots[0]!;
    expect(half.status).toBe("closing");
    expect(dec(half.exit!.filled_size).gt(0)).toBe(true);
    port.fillRatio = 1;
    port.clock += 60_000;
    port.setPrice("ETH", port.prices.get("ETH")!); // the next price retries the unfinished close
    await runner.settled();
    expect(runner.state.slots[0]!.status).toBe("empty");
    const exits = readTrades(dataDir).filter((t) => t.side === "sell");
    expect(exits.length).toBe(2);
    expect(exits.reduce((s, t) => s.plus(t.quantity), dec(0)).toFixed()).toBe(dec(size).toFixed());
    expect(new Set(readTrades(dataDir).map((t) => t.oid)).size).toBe(3);
    const closed = runner.state.closed_slots.at(-1)!;
    expect(closed.entry_size).toBe(size);
    // PnL is net of the real fees
    expect(Number(closed.realized_pnl)).toBeLessThan(0);
    expect(dec(runner.state.total_pnl).eq(closed.realized_pnl)).toBe(true);
    await runner.close();
  });

  it("an exit that finds the position already gone books it from the exchange's fills", async () => {
    const { port, runner, dataDir } = await setup();
    await enterEth(runner, port);
    const size = runner.state.slots[0]!.entry_size;
    port.pos.delete("ETH"); // liquidated or closed by hand
    port.fills.push({
      coin: "ETH",
      side: "sell",
      size,
      price: "2400",
      fee: "2",
      time: port.clock,
      oid: "liq",
    });
    await runner.exitSlot(0, "hard_stop: ROE -6.0%");
    expect(runner.state.slots[0]!.status).toBe("empty");
    const c = runner.state.closed_slots.at(-1)!;
    expect(c.exit_price).toBe("2400");
    expect(c.close_reason).toContain("position already closed on the exchange");
    expect(Number(c.realized_pnl)).toBeLessThan(0);
    // The liquidation's fill is in trades.jsonl (once), so HOWL sees how the position ended.
    const liq = readTrades(dataDir).filter((t) => t.oid === "liq");
    expect(liq).toHaveLength(1);
    expect(liq[0]).toMatchObject({ side: "sell", price: "2400", quantity: size, fee: "2", slot_id: 0 });
    await runner.close();
  });

  it("restart: corrupt state refuses to start; slots are reconciled with the exchange before any entry (B3)", async () => {
    const { port, dataDir, runner, open } = await setup();
    await enterEth(runner, port);
    await runner.close();
    // a restart with the position still open keeps the slot and its guard (no spurious watchdog close)
    const again = await open();
    expect(again.state.slots[0]!.status).toBe("active");
    expect(again.guards.get(0)).toBeDefined();
    await again.close();
    // the position was closed outside WOLF and another one opened by hand
    port.pos.set("ETH", { szi: dec(0), entry: dec(0) });
    port.fills.push({
      coin: "ETH",
      side: "sell",
      size: again.state.slots[0]!.entry_size,
      price: "2600",
      fee: "1",
      time: port.clock,
      oid: "x1",
    });
    port.pos.set("SOL", { szi: dec(-50), entry: dec(100) });
    const third = await open();
    expect(third.state.slots.some((s) => s.coin === "ETH")).toBe(false);
    expect(third.state.closed_slots.at(-1)!.close_reason).toContain("no position on the exchange");
    expect(third.state.closed_slots.at(-1)!.exit_price).toBe("2600");
    const adopted = third.state.slots.find((s) => s.coin === "SOL")!;
    expect(adopted).toMatchObject({
      status: "active",
      side: "short",
      entry_size: "50",
      entry_source: "reconciled",
    });
    expect(third.guards.get(adopted.slot_id)).toBeDefined();
    await third.close();
    writeFileSync(statePath(dataDir), "{broken");
    await expect(open()).rejects.toThrow(/corrupt/);
  });

  it("restart with both guard copies lost: the stop is rebuilt from the prices since entry, never looser", async () => {
    const { port, dataDir, runner, open } = await setup();
    await enterEth(runner, port);
    const slot = runner.state.slots[0]!;
    const entry = Number(slot.entry_price);
    await runner.close();
    const id = slot.dsl_position_id;
    rmSync(join(dslDir(dataDir), `${id}.json`), { force: true });
    rmSync(join(dslDir(dataDir), `${id}.json.bak`), { force: true });
    // The exchange's 15m candles since the entry: the one the entry fell in also holds a wick from
    // before the entry (not a price since entry), then a candle that ran to +6 %.
    const q = 900_000;
    const first = slot.opened_at_ms - (slot.opened_at_ms % q);
    const asked: { coin: string; interval: string; start: number }[] = [];
    port.candles = async (coin, interval, start) => {
      asked.push({ coin, interval, start });
      return [
        { t: first, T: first + q - 1, o: entry, h: entry * 1.5, l: entry * 0.99, c: entry * 1.01, v: 1 },
        {
          t: first + q,
          T: first + 2 * q - 1,
          o: entry,
          h: entry * 1.06,
          l: entry * 1.0,
          c: entry * 1.02,
          v: 1,
        },
      ];
    };
    port.clock = first + 2 * q;
    const again = await open();
    expect(asked.some((a) => a.coin === "ETH" && a.start <= slot.opened_at_ms)).toBe(true);
    const g = again.guards.get(0)!;
    expect(g.state.high_water).toBeCloseTo(entry * 1.06, 6);
    expect(loadGuard(dslDir(dataDir), id).kind).toBe("ok");
    await again.close();
  });

  it("new occupants start clean: no stale signal timestamps or close fields (B5)", async () => {
    const { port, runner } = await setup({ conviction_collapse_minutes: 1 });
    await enterEth(runner, port);
    runner.state.slots[0] = { ...runner.state.slots[0]!, signal_disappeared_ms: 1 };
    await runner.exitSlot(0, "manual");
    port.clock += 60_000;
    port.pump("ETH");
    await runner.tick();
    const s = runner.state.slots[0]!;
    expect(s.status).toBe("active");
    expect(s.signal_disappeared_ms).toBe(0);
    expect(s.exit).toBeNull();
    expect(s.opened_at_ms).toBe(port.clock);
    await runner.close();
  });

  it("daily reset at the UTC day boundary on the first tick of the new day, once (persisted)", async () => {
    const { port, runner, open } = await setup();
    port.clock = Date.UTC(2026, 0, 5, 23, 59);
    runner.state.daily_pnl = "-42";
    runner.state.day = "2026-01-05";
    await runner.tick();
    expect(runner.state.daily_pnl).toBe("-42");
    port.clock = Date.UTC(2026, 0, 6, 7, 30); // the first tick of the day lands hours late
    await runner.tick();
    expect(runner.state.daily_pnl).toBe("0");
    expect(runner.state.day).toBe("2026-01-06");
    runner.state.daily_pnl = "-7";
    await runner.close();
    const again = await open();
    await again.tick();
    expect(again.state.daily_pnl).toBe("-7");
    await again.close();
  });

  it("calls the review hook every review_interval_ticks and once a day after the review hour", async () => {
    const { port, runner, reviews } = await setup({ review_interval_ticks: 2, review_hour_utc: 4 });
    port.clock = Date.UTC(2026, 0, 5, 3, 0);
    await runner.tick();
    expect(reviews).toEqual([]);
    port.clock = Date.UTC(2026, 0, 5, 4, 1);
    await runner.tick();
    expect(reviews.map((r) => r.reason)).toEqual(["interval", "daily"]);
    await runner.tick();
    await runner.tick();
    expect(reviews.map((r) => r.reason)).toEqual(["interval", "daily", "interval"]);
    await runner.close();
  });

  it("writes movers and scanner history under $DATA_DIR at the contract paths", async () => {
    const { port, dataDir, runner } = await setup();
    await enterEth(runner, port);
    expect(existsSync(join(dataDir, "movers", "scan-history.json"))).toBe(true);
    expect(existsSync(join(dataDir, "scanner", "scan-history.json"))).toBe(true);
    expect(readdirSync(join(dataDir, "wolf"))).toEqual(
      expect.arrayContaining(["state.json", "trades.jsonl", "dsl"]),
    );
    await runner.close();
  });
});

describe("run loop and signal sources", () => {
  it("a restarted run scans on its first tick (its opportunities were held in memory)", async () => {
    const { port, dataDir, runner, open } = await setup();
    const scans = () =>
      (JSON.parse(readFileSync(join(dataDir, "scanner", "scan-history.json"), "utf8")) as unknown[]).length;
    await runner.tick(); // tick 1 scans
    port.clock += 60_000;
    await runner.tick(); // tick 2 does not
    expect(scans()).toBe(1);
    await runner.close();
    const again = await open();
    port.clock += 60_000;
    await again.tick(); // tick 3, the first of this run
    expect(scans()).toBe(2);
    await again.close();
  });

  it("--max-ticks counts ticks of this run, not the persisted tick number", async () => {
    const { runner, open } = await setup();
    await runner.run({ maxTicks: 2, tickMs: 0 });
    await runner.close();
    const again = await open();
    await again.run({ maxTicks: 2, tickMs: 0 });
    expect(again.state.tick_count).toBe(4);
    await again.close();
  });

  it("smart money: whale positions open at start-up are seeded, not entered; a new one is (§7.21)", async () => {
    const port = new FakePort({ ETH: 2500, SOL: 100 });
    port.whales.set("0xw", [{ coin: "ETH", szi: 100, entry_px: 2500 }]);
    const { runner } = await setup(
      {
        smart_money_enabled: true,
        smart_money_addresses: ["0xw"],
        smart_money_poll_interval_ticks: 1,
        movers_immediate_auto_entry: false,
      },
      port,
    );
    await runner.tick();
    expect(runner.state.slots.every((s) => s.status === "empty")).toBe(true);
    port.whales.set("0xw", [
      { coin: "ETH", szi: 100, entry_px: 2500 },
      { coin: "SOL", szi: -1000, entry_px: 100 },
    ]);
    port.clock += 60_000;
    await runner.tick();
    const s = runner.state.slots.find((x) => x.status === "active");
    expect(s).toMatchObject({ coin: "SOL", side: "short", entry_source: "smart_money:SMART_MONEY" });
    await runner.close();
  });
});

describe("status mapping (B7)", () => {
  it("shows the real side, ROE, DSL phase, slot count and recent closes", async () => {
    const { port, runner } = await setup({}, new FakePort({ ETH: 2500, SOL: 100 }));
    await enterEth(runner, port);
    port.clock += 1000;
    port.setPrice("ETH", Number(runner.state.slots[0]!.entry_price) * 1.002);
    const st = wolfStatus(runner.state);
    expect(st).toMatchObject({
      status: "running",
      engine: "wolf",
      max_slots: 3,
      total_trades: 1,
      tick_count: 3,
    });
    expect(st.active_slots[0]).toMatchObject({
      slot_id: 0,
      instrument: "ETH-PERP",
      side: "long",
      dsl_phase: 1,
      status: "active",
    });
    expect(st.active_slots[0]!.roe_pct).toBeCloseTo(2, 1);
    expect(st.positions[0]).toMatchObject({ slot: 0, market: "ETH-PERP", side: "long", phase: 1 });
    expect(st.positions[0]!.size).toBe(Number(runner.state.slots[0]!.entry_size));
    const text = wolfStatusText(runner.state);
    expect(text).toContain("WOLF Orchestrator — default preset");
    expect(text).toMatch(
      /Tick: 3 \| Daily PnL \(realised\): \$\+0\.00 \| Total PnL \(realised\): \$\+0\.00 .*\| Slots: 1\/3/,
    );
    expect(text).toMatch(/Slot 0: ETH-PERP LONG [\d.]+ @ [\d.]+ \| ROE: \+2\.0% \| Phase 1/);
    expect(text).toContain("Slot 1: (empty)");
    for (let i = 0; i < 7; i++)
      runner.state.closed_slots.push({ ...runner.state.closed_slots[0]!, ...fakeClosed(i) });
    expect(wolfStatus(runner.state).closed_slots.map((c) => c.slot_id)).toEqual([2, 3, 4, 5, 6]);
    await runner.close();
  });
});

function fakeClosed(i: number) {
  return {
    slot_id: i,
    instrument: "SOL-PERP",
    side: "short" as const,
    entry_size: "1",
    entry_price: "100",
    exit_price: "99",
    realized_pnl: "1",
    roe_pct: 10,
    close_reason: "x",
    dsl_phase: 2,
    opened_at_ms: 1,
    closed_at_ms: 2,
    entry_source: "scanner",
    fees: "0",
  };
}

describe("an entry whose answer was lost", () => {
  it("is never sent twice: the slot is pending until the order is resolved, then adopts the one position with its size and entry", async () => {
    const { port, dataDir, runner } = await setup();
    port.loseAnswers = 1;
    port.unreachableResolves = 2; // the exchange cannot be asked at first
    await enterEth(runner, port);
    expect(runner.state.slots[0]!.status).toBe("pending");
    // More ticks while ETH is still signalled: nothing else is sent for ETH.
    for (let i = 0; i < 4; i++) {
      port.clock += 60_000;
      port.pump("ETH");
      await runner.tick();
      await runner.settled();
    }
    const entries = port.orders.filter((o) => o.coin === "ETH" && !o.reduceOnly);
    expect(entries).toHaveLength(1);
    const pos = (await port.positions()).filter((p) => p.coin === "ETH");
    expect(pos).toHaveLength(1);
    const slots = runner.state.slots.filter((s) => s.coin === "ETH");
    expect(slots).toHaveLength(1);
    expect(slots[0]).toMatchObject({
      status: "active",
      side: "long",
      entry_size: pos[0]!.szi,
      entry_price: port.fills[0]!.price,
    });
    const trades = readTrades(dataDir).filter((t) => t.instrument === "ETH-PERP");
    expect(trades).toHaveLength(1);
    expect(trades[0]).toMatchObject({ cloid: entries[0]!.cloid, quantity: pos[0]!.szi });
    await runner.close();
  });

  it("a restart with a pending entry resolves it before anything else: the position is adopted once, not twice", async () => {
    const { port, runner, open, dataDir } = await setup();
    port.loseAnswers = 1;
    port.unreachableResolves = 1_000;
    await enterEth(runner, port);
    await runner.close();
    const saved = loadWolfState(dataDir);
    expect(saved.kind === "ok" && saved.state.slots[0]!.status).toBe("pending");
    port.unreachableResolves = 0;
    const again = await open();
    await again.settled();
    const eth = again.state.slots.filter((s) => s.coin === "ETH");
    expect(eth).toHaveLength(1);
    expect(eth[0]).toMatchObject({ status: "active", entry_size: (await port.positions())[0]!.szi });
    await again.close();
  });

  it("a lost answer whose order never executed frees the slot (and the coin) again", async () => {
    const { port, runner } = await setup();
    port.fillRatio = 0;
    port.loseAnswers = 1;
    await enterEth(runner, port);
    await runner.settled();
    expect(runner.state.slots[0]!.status).toBe("empty");
    expect(await port.positions()).toEqual([]);
    await runner.close();
  });
});

describe("an entry is saved pending before its order goes out", () => {
  /** A copy of the data directory as a process killed now would leave it (its lock not included). */
  function snapshot(dataDir: string): string {
    const copy = mkdtempSync(join(tmpdir(), "wolf-killed-"));
    cpSync(dataDir, copy, { recursive: true, filter: (src) => !src.endsWith(".lock") });
    return copy;
  }
  const reopen = (port: FakePort, dataDir: string, config: ReturnType<typeof buildWolfConfig>) =>
    WolfRunner.open({ port, dataDir, preset: "default", config, log: quiet });

  it("a kill while the entry is in flight: the restart adopts the filled order with its signal source and logs its fill once", async () => {
    const { port, dataDir, runner, config } = await setup();
    let killed: string | undefined;
    const seen: { status?: string; cloid?: string | undefined }[] = [];
    port.atSend = (req) => {
      if (req.reduceOnly || killed) return;
      const saved = loadWolfState(dataDir);
      const slot = saved.kind === "ok" ? saved.state.slots.find((s) => s.coin === req.coin) : undefined;
      seen.push({ status: slot?.status, cloid: slot?.pending_order?.cloid });
      killed = snapshot(dataDir);
    };
    await enterEth(runner, port);
    const sent = port.orders.filter((o) => o.coin === "ETH" && !o.reduceOnly);
    expect(sent).toHaveLength(1);
    expect(seen).toEqual([{ status: "pending", cloid: sent[0]!.cloid }]);
    await runner.close();

    // The process "killed" at the send restarts from what it had saved; the order filled meanwhile.
    const again = await reopen(port, killed!, config);
    await again.settled();
    const eth = again.state.slots.filter((s) => s.coin === "ETH");
    expect(eth).toHaveLength(1);
    expect(eth[0]).toMatchObject({
      status: "active",
      entry_source: "movers_immediate",
      entry_size: (await port.positions())[0]!.szi,
      entry_price: port.fills[0]!.price,
    });
    await again.tick();
    await again.settled();
    const trades = readTrades(killed!).filter((t) => t.instrument === "ETH-PERP");
    expect(trades).toHaveLength(1);
    expect(trades[0]).toMatchObject({ cloid: sent[0]!.cloid, meta: "entry:movers_immediate" });
    expect(port.orders.filter((o) => o.coin === "ETH" && !o.reduceOnly)).toHaveLength(1);
    await again.close();
  });

  it("a kill after the entry's trade line but before state.json: the restart logs the entry once, not twice", async () => {
    const { port, dataDir, runner, config } = await setup();
    let killed: string | undefined;
    port.atSend = (req) => {
      if (req.reduceOnly || killed) return;
      killed = snapshot(dataDir);
    };
    await enterEth(runner, port);
    await runner.close();
    // The process died right after appending the entry's line: trades.jsonl has it, state.json
    // still says pending.
    copyFileSync(tradesPath(dataDir), tradesPath(killed!));
    const again = await reopen(port, killed!, config);
    await again.settled();
    expect(again.state.slots.find((s) => s.coin === "ETH")).toMatchObject({ status: "active" });
    const entries = readTrades(killed!).filter((t) => t.instrument === "ETH-PERP" && t.side === "buy");
    expect(entries).toHaveLength(1);
    await again.close();
  });

  it("a kill before the order reached the exchange: the slot holds the coin until the order's expiry, then is free", async () => {
    const { port, dataDir, runner, config } = await setup();
    let killed: string | undefined;
    port.atSend = (req) => {
      if (req.reduceOnly || killed) return;
      killed = snapshot(dataDir);
      throw new Error("killed before the request left");
    };
    await enterEth(runner, port);
    await runner.close();
    expect(await port.positions()).toEqual([]);
    port.atSend = undefined;

    const again = await reopen(port, killed!, config);
    await again.settled();
    expect(again.state.slots[0]).toMatchObject({ status: "pending", coin: "ETH" });
    port.clock += 5_000; // before the expiry: still held, nothing sent for ETH
    await again.tick();
    await again.settled();
    expect(again.state.slots.filter((s) => s.coin === "ETH")).toHaveLength(1);
    expect(again.state.slots[0]!.status).toBe("pending");
    expect(port.orders.filter((o) => o.coin === "ETH")).toEqual([]);
    port.clock += 15_000; // past the expiry: it can never execute
    await again.tick();
    await again.settled();
    expect(again.state.slots.find((s) => s.coin === "ETH")?.status ?? "empty").not.toBe("pending");
    const saved = loadWolfState(killed!);
    expect(saved.kind === "ok" && saved.state.slots.some((s) => s.status === "pending")).toBe(false);
    await again.close();
  });
});

describe("entries the exchange refuses", () => {
  const ethEntries = (port: FakePort) => port.orders.filter((o) => o.coin === "ETH" && !o.reduceOnly);
  async function pumpTick(r: WolfRunner, port: FakePort, ms: number) {
    port.clock += ms;
    port.pump("ETH");
    await r.tick();
  }

  it("a price too far from the reference: the coin is left alone for a while, then tried again", async () => {
    const { port, runner } = await setup();
    port.refusals = ["Order price cannot be more than 80% away from the reference price"];
    await enterEth(runner, port);
    expect(ethEntries(port)).toHaveLength(1);
    await pumpTick(runner, port, 30_000);
    expect(ethEntries(port)).toHaveLength(1); // still cooling down: not sent again
    await pumpTick(runner, port, 31_000);
    expect(ethEntries(port)).toHaveLength(2);
    expect(runner.state.slots[0]).toMatchObject({ status: "active", coin: "ETH" });
    await runner.close();
  });

  it("a halted market: the slot does not re-enter it while ETH keeps signalling (an hour, not a minute)", async () => {
    const { port, runner } = await setup();
    port.refusals = ["Trading is halted."];
    await enterEth(runner, port);
    expect(ethEntries(port)).toHaveLength(1);
    expect(runner.state.slots[0]).toMatchObject({ status: "empty" });
    // ETH keeps moving (a signal every tick) for 15 minutes: no second entry.
    for (let i = 0; i < 3; i++) await pumpTick(runner, port, 5 * 60_000);
    expect(ethEntries(port)).toHaveLength(1);
    await runner.close();
  });

  it("insufficient margin: one smaller order, not the same one again", async () => {
    const { port, runner } = await setup();
    port.refusals = ["Insufficient margin to place order. asset=1"];
    await enterEth(runner, port);
    const [first, second] = ethEntries(port);
    expect(second).toBeDefined();
    expect(Number(second!.size)).toBeCloseTo(Number(first!.size) / 2, 3);
    expect(runner.state.slots[0]).toMatchObject({ status: "active", entry_size: second!.size });
    await runner.close();
  });

  it("an order that cannot fill on the next tick either is retried only by the next tick's plan", async () => {
    const { port, runner } = await setup();
    port.refusals = ["Order could not immediately match against any resting orders. asset=1"];
    await enterEth(runner, port);
    expect(ethEntries(port)).toHaveLength(1);
    await pumpTick(runner, port, 60_000);
    expect(ethEntries(port)).toHaveLength(2);
    await runner.close();
  });

  it("an account that does not exist stops entries for the run", async () => {
    const { port, runner, dataDir } = await setup();
    port.refusals = ["User or API Wallet 0xabc does not exist."];
    await enterEth(runner, port);
    await pumpTick(runner, port, 60_000);
    await pumpTick(runner, port, 60_000);
    expect(ethEntries(port)).toHaveLength(1);
    // …and says so where the dashboard reads it (the saved state), not only in a log line.
    const saved = loadWolfState(dataDir);
    const shown = saved.kind === "ok" ? wolfStatus(saved.state).entries_stopped : undefined;
    expect(shown).toEqual({
      reason: "exchange_refused",
      detail: expect.stringContaining("User or API Wallet 0xabc does not exist."),
      until: null,
    });
    expect(wolfStatusText(runner.state)).toContain("ENTRIES STOPPED");
    await runner.close();
  });

  it("a restart tries entries again: the refusal stopped that run only", async () => {
    const { port, runner, open } = await setup();
    port.refusals = ["User or API Wallet 0xabc does not exist."];
    await enterEth(runner, port);
    expect(wolfStatus(runner.state).entries_stopped?.reason).toBe("exchange_refused");
    await runner.close();
    const again = await open();
    expect(wolfStatus(again.state).entries_stopped).toBeNull();
    await again.close();
  });
});

import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AlertEvent, Alerter } from "../../src/alerts/webhook.ts";
import type { HlClient } from "../../src/exchange/index.ts";
import { backstopCloid } from "../../src/guard/backstop.ts";
import type { BackstopPort, ListingOptions, StopSpec } from "../../src/guard/backstops.ts";
import { HlBackstopPort } from "../../src/guard/hl-backstops.ts";
import { checkTradeStop, placeTradeStop } from "../../src/guard/trade-stop.ts";
import { type SimWorld, startSimWorld } from "../../src/sim/world.ts";
import { buildWolfConfig, type WolfConfigInput } from "../../src/wolf/config.ts";
import { StandaloneGuard } from "../../src/wolf/dsl-runner.ts";
import { GuardOnly } from "../../src/wolf/guard-only.ts";
import { HlWolfPort } from "../../src/wolf/hl-port.ts";
import { statePath } from "../../src/wolf/state.ts";
import { openWolfRunner, simPaperClient, until } from "../support/sim-wolf.ts";

let world: SimWorld;
const clients: HlClient[] = [];

beforeAll(async () => {
  // Needs the exchange's per-IP weight limit off: twenty WOLF restarts in seconds, each reconciling the account and its stops spend more than
  // one IP's 1200 a minute. The per-address limit stays on.
  world = await startSimWorld({ ipWeightLimit: false, seed: 29 });
});
afterAll(async () => {
  for (const c of clients) await c.close();
  await world.close();
});

async function newClient(): Promise<HlClient> {
  const client = await simPaperClient(world);
  clients.push(client);
  return client;
}

/** The account's resting trigger orders, as the exchange shows them. */
async function triggers(client: HlClient) {
  return (await client.frontendOpenOrdersAllDexes()).filter((o) => o.isTrigger);
}

/** A BackstopPort over the sim that counts what it is asked (and can be told to refuse placements). */
class CountingPort implements BackstopPort {
  calls = { place: 0, modify: 0, cancel: 0 };
  refuse: string | undefined;
  private readonly inner: HlBackstopPort;
  constructor(client: HlClient) {
    this.inner = new HlBackstopPort(client);
  }
  szDecimals(coin: string) {
    return this.inner.szDecimals(coin);
  }
  async placeStop(spec: StopSpec) {
    this.calls.place++;
    if (this.refuse) return { status: "refused" as const, message: this.refuse };
    return this.inner.placeStop(spec);
  }
  modifyStop(spec: StopSpec) {
    this.calls.modify++;
    return this.inner.modifyStop(spec);
  }
  cancelStop(coin: string, cloid: `0x${string}`) {
    this.calls.cancel++;
    return this.inner.cancelStop(coin, cloid);
  }
  restingStops(coins?: readonly string[], opts?: ListingOptions) {
    return this.inner.restingStops(coins, opts);
  }
  hasPosition(coin: string) {
    return this.inner.hasPosition(coin);
  }
}

class CountingWolfPort extends HlWolfPort {
  override readonly backstops: CountingPort;
  /** Added to the wall clock: lets a test move past a time limit without waiting for it. */
  skewMs = 0;
  constructor(client: HlClient) {
    super(client);
    this.backstops = new CountingPort(client);
  }
  override now(): number {
    return Date.now() + this.skewMs;
  }
}

function openWolf(
  client: HlClient,
  dataDir: string,
  extra: WolfConfigInput = {},
  more: { alerter?: Alerter; port?: HlWolfPort } = {},
) {
  return openWolfRunner(more.port ?? new HlWolfPort(client), dataDir, extra, {
    stream: false,
    ...(more.alerter ? { alerter: more.alerter } : {}),
  });
}

describe("WOLF keeps a stop resting on the exchange for every open slot (sim)", () => {
  it("an entry fill gets its reduce-only stop-market order at once, beyond the tighter stop by the margin", async () => {
    const client = await newClient();
    const dataDir = mkdtempSync(join(tmpdir(), "backstop-"));
    const runner = await openWolf(client, dataDir);
    try {
      await runner.enter({
        slot_id: 0,
        coin: "ETH",
        direction: "long",
        source: "test",
        score: 90,
        priority: 1,
        reason: "test entry",
      });
      const slot = runner.state.slots[0]!;
      expect(slot.status).toBe("active");
      await runner.settled();
      const st = runner.state.slots[0]!.backstop!;
      expect(st).toMatchObject({ status: "resting", cloid: backstopCloid("wolf", slot.dsl_position_id) });
      const resting = await triggers(client);
      expect(resting).toHaveLength(1);
      const entry = Number(slot.entry_price);
      // Hard stop −5 % ROE at 10x = entry × 0.995 (tighter than tight's phase-1 floor at 0.95), then 0.5 %.
      expect(Number(resting[0]!.triggerPx)).toBeCloseTo(entry * 0.995 * 0.995, 0);
      expect(resting[0]).toMatchObject({
        coin: "ETH",
        side: "A",
        reduceOnly: true,
        isTrigger: true,
        sz: slot.entry_size,
        cloid: st.cloid,
        orderType: "Stop Market",
      });
      expect(resting[0]!.triggerCondition).toMatch(/below/);
      expect(String(resting[0]!.oid)).toBe(String(st.oid));
      // state.json carries it: what /health and the dashboard show.
      const saved = JSON.parse(readFileSync(statePath(dataDir), "utf8"));
      expect(saved.slots[0].backstop.status).toBe("resting");
    } finally {
      await runner.close();
    }
  });

  it("the stop follows the floor with a modify (never a cancel and a new order), resizes on a partial close, and goes when the position closes", async () => {
    const client = await newClient();
    const port = new CountingWolfPort(client);
    const runner = await openWolf(
      client,
      mkdtempSync(join(tmpdir(), "backstop-")),
      { backstop_min_interval_s: 1 },
      { port },
    );
    try {
      await runner.enter({
        slot_id: 0,
        coin: "SOL",
        direction: "long",
        source: "test",
        score: 90,
        priority: 1,
        reason: "test entry",
      });
      await runner.settled();
      const slot = runner.state.slots[0]!;
      const entry = Number(slot.entry_price);
      const first = (await triggers(client))[0]!;
      expect(port.backstops.calls).toEqual({ place: 1, modify: 0, cancel: 0 });

      // +1.5 % at 10x = +15 % ROE: tier 0 locks +5 % ROE (entry × 1.005), above the hard stop.
      port.skewMs += 1_050; // past backstop_min_interval_s
      world.setPrice("SOL", String(entry * 1.015));
      runner.onMids({ SOL: String(entry * 1.015) });
      await runner.settled();
      const moved = await triggers(client);
      expect(moved).toHaveLength(1);
      expect(Number(moved[0]!.triggerPx)).toBeGreaterThan(Number(first.triggerPx));
      expect(Number(moved[0]!.triggerPx)).toBeCloseTo(entry * 1.005 * 0.995, 1);
      expect(moved[0]!.cloid).toBe(first.cloid);
      expect(port.backstops.calls).toEqual({ place: 1, modify: 1, cancel: 0 });
      // A smaller move right after: no modify (too soon, too few ticks).
      runner.onMids({ SOL: String(entry * 1.0155) });
      await runner.settled();
      expect(port.backstops.calls.modify).toBe(1);

      // Half the position is closed by hand: reconciliation adopts the size, the stop follows it.
      const half = (Number(slot.entry_size) / 2).toFixed(2);
      const reduced = await client.marketOrder({
        instrument: "SOL-PERP",
        side: "sell",
        size: half,
        reduceOnly: true,
      });
      expect(reduced.status).toBe("filled");
      await runner.reconcile();
      await runner.settled();
      const left = runner.state.slots[0]!.entry_size;
      const resized = await triggers(client);
      expect(resized).toHaveLength(1);
      expect(resized[0]!.sz).toBe(left);
      expect(port.backstops.calls.place).toBe(1);

      // The client path closes it (hard stop from a price): the stop is cancelled, no orphan is left.
      runner.onMids({ SOL: String(entry * 0.99) });
      await runner.settled();
      await until("the slot closed", 3000, () =>
        runner.state.slots[0]!.status === "empty" ? true : undefined,
      );
      await runner.settled();
      expect(await triggers(client)).toEqual([]);
      expect(port.backstops.calls.cancel).toBe(1);
    } finally {
      await runner.close();
    }
  });

  it("with no process running, the resting stop closes the position when the mark crosses it", async () => {
    const client = await newClient();
    const dataDir = mkdtempSync(join(tmpdir(), "backstop-"));
    const opened = await client.marketOrder({ instrument: "AVAX-PERP", side: "buy", size: "10" });
    expect(opened.status).toBe("filled");
    const runner = await openWolf(client, dataDir);
    await runner.settled();
    const trigger = Number(runner.state.slots.find((s) => s.coin === "AVAX")!.backstop!.triggerPx);
    await runner.close(); // the trader is gone (paused, crashed, cut off): only the exchange acts
    world.setPrice("AVAX", String(trigger * 0.98));
    await until("the exchange stop closed AVAX", 3000, async () => {
      const st = await client.clearinghouseState();
      return st.assetPositions.some((p) => p.position.coin === "AVAX") ? undefined : true;
    });
    expect(await triggers(client)).toEqual([]);
    // The next start books the close from the fills and leaves nothing resting.
    const again = await openWolf(client, dataDir);
    try {
      await again.settled();
      expect(again.state.slots.every((s) => s.status === "empty")).toBe(true);
      expect(again.state.closed_slots.at(-1)!.instrument).toBe("AVAX-PERP");
      expect(await triggers(client)).toEqual([]);
    } finally {
      await again.close();
    }
  });

  it("20 restarts and every close: exactly one stop per open position, no orphan", async () => {
    const client = await newClient();
    const dataDir = mkdtempSync(join(tmpdir(), "backstop-"));
    for (const [instrument, size] of [
      ["ETH-PERP", "0.5"],
      ["SOL-PERP", "5"],
      ["LTC-PERP", "5"],
    ] as const)
      expect((await client.marketOrder({ instrument, side: "buy", size })).status).toBe("filled");
    // An orphan left by an earlier run (a stop for a position WOLF no longer holds).
    const stray = await client.placeStop({
      instrument: "BTC-PERP",
      side: "sell",
      size: "0.01",
      triggerPx: "1000",
      cloid: backstopCloid("wolf", "wolf-9-1"),
    });
    expect(stray.status).toBe("resting");
    for (let i = 0; i < 20; i++) {
      const runner = await openWolf(client, dataDir);
      await runner.settled();
      const open = runner.state.slots.filter((s) => s.status === "active");
      const resting = await triggers(client);
      expect(resting).toHaveLength(open.length);
      expect(new Set(resting.map((o) => o.coin))).toEqual(new Set(open.map((s) => s.coin)));
      if (i === 5) {
        // A kill before the stop's state was saved: state.json forgets it; the restart must not add one.
        const path = statePath(dataDir);
        const st = JSON.parse(readFileSync(path, "utf8"));
        await runner.close();
        for (const s of st.slots) delete s.backstop;
        writeFileSync(path, JSON.stringify(st));
        continue;
      }
      if (i === 8 || i === 13 || i === 17) await runner.exitSlot(open[0]!.slot_id, "manual");
      await runner.settled();
      await runner.close();
    }
    const final = await openWolf(client, dataDir);
    try {
      await final.settled();
      expect(final.state.slots.every((s) => s.status === "empty")).toBe(true);
      expect(await triggers(client)).toEqual([]);
    } finally {
      await final.close();
    }
  });

  it("a refused stop is alerted and the slot shows unprotected in state.json", async () => {
    const client = await newClient();
    const port = new CountingWolfPort(client);
    port.backstops.refuse = "Order price cannot be more than 95% away from the reference price";
    const alerts: { event: AlertEvent; text: string }[] = [];
    const alerter: Alerter = {
      send: (event, text) => void alerts.push({ event, text }),
      flush: async () => undefined,
    };
    expect((await client.marketOrder({ instrument: "ETH-PERP", side: "buy", size: "0.5" })).status).toBe(
      "filled",
    );
    const dataDir = mkdtempSync(join(tmpdir(), "backstop-"));
    const runner = await openWolf(client, dataDir, {}, { port, alerter });
    try {
      await runner.settled();
      const slot = runner.state.slots.find((s) => s.coin === "ETH")!;
      expect(slot.backstop).toMatchObject({ status: "refused", oid: null });
      expect(slot.backstop!.message).toMatch(/95% away/);
      expect(alerts.filter((a) => a.event === "backstop")).toHaveLength(1);
      expect(alerts[0]!.text).toMatch(/NOT protected on the exchange/);
      const saved = JSON.parse(readFileSync(statePath(dataDir), "utf8"));
      expect(saved.slots[slot.slot_id].backstop.status).toBe("refused");
      // Prices keep coming: no storm of placements while refused (asked again after 30 s).
      for (let i = 0; i < 10; i++) runner.onMids({ ETH: String(Number(slot.entry_price) * 1.0001) });
      await runner.settled();
      expect(port.backstops.calls.place).toBe(1);
      expect(alerts.filter((a) => a.event === "backstop")).toHaveLength(1);
    } finally {
      await runner.close();
    }
  });
});

describe("guard only (protect-only mode, and beside a paused trader)", () => {
  it("beside a trader that holds the lock and cannot act: one stop per slot, the hard stop closes from its polls, state.json left to the trader, no entry", async () => {
    const client = await newClient();
    const dataDir = mkdtempSync(join(tmpdir(), "backstop-"));
    expect((await client.marketOrder({ instrument: "LINK-PERP", side: "buy", size: "20" })).status).toBe(
      "filled",
    );
    const paused = await openWolf(client, dataDir); // holds the run lock, never ticks: "SIGSTOPped"
    await paused.settled();
    const before = readFileSync(statePath(dataDir), "utf8");
    const guard = await GuardOnly.start({
      port: new HlWolfPort(client),
      dataDir,
      config: buildWolfConfig("default", {}, { leverage: 10 }),
      lock: false,
      readOnlyState: true,
      pollMs: 50,
    });
    try {
      await guard.runner.settled();
      expect(await triggers(client)).toHaveLength(1);
      const slot = guard.runner.state.slots.find((s) => s.coin === "LINK")!;
      world.setPrice("LINK", String(Number(slot.entry_price) * 0.994)); // −6 % ROE: past the hard stop, not the stop
      await until("LINK closed", 3000, async () => {
        const st = await client.clearinghouseState();
        return st.assetPositions.some((p) => p.position.coin === "LINK") ? undefined : true;
      });
      await guard.runner.settled();
      expect(guard.openSlots()).toBe(0);
      expect(await triggers(client)).toEqual([]);
      expect(readFileSync(statePath(dataDir), "utf8")).toBe(before);
      expect((await client.clearinghouseState()).assetPositions).toEqual([]);
    } finally {
      await guard.stop();
      await paused.close();
    }
  });
});

describe("hl dsl start keeps its own stop on the exchange (sim)", () => {
  it("one stop for the guarded size and side, found again after a restart, cancelled when the guard closes", async () => {
    const client = await newClient();
    expect((await client.marketOrder({ instrument: "ETH-PERP", side: "buy", size: "1" })).status).toBe(
      "filled",
    );
    const entry = Number(
      (await client.clearinghouseState()).assetPositions.find((p) => p.position.coin === "ETH")!.position
        .entryPx,
    );
    const dir = mkdtempSync(join(tmpdir(), "dsl-backstop-"));
    const port = new HlWolfPort(client);
    const open = () =>
      StandaloneGuard.open({
        port,
        coin: "ETH",
        dir,
        preset: "tight",
        leverage: 10,
        given: { entry, size: "0.4", direction: "long" },
        backstops: new HlBackstopPort(client),
      });
    const first = await open();
    await first.settled();
    let resting = await triggers(client);
    expect(resting).toHaveLength(1);
    expect(resting[0]).toMatchObject({
      sz: "0.4",
      side: "A",
      reduceOnly: true,
      cloid: first.guard.backstop!.cloid,
    });
    // −3 % ROE auto floor at 10x (entry × 0.997), then the 0.5 % margin.
    expect(Number(resting[0]!.triggerPx)).toBeCloseTo(entry * 0.997 * 0.995, 0);
    const again = await open(); // a restart: the same stop, not a second one
    await again.settled();
    resting = await triggers(client);
    expect(resting).toHaveLength(1);
    expect(again.guard.backstop!.status).toBe("resting");
    // Breaches count once per breach_interval_ms (10 s); the test does not wait that long.
    again.guard = { ...again.guard, config: { ...again.guard.config, breach_interval_ms: 0 } };
    for (let i = 0; i < 4 && !again.done; i++) await again.onPrice(entry * 0.99);
    expect(again.done).toBe(true);
    await again.settled();
    expect(await triggers(client)).toEqual([]);
    const left = (await client.clearinghouseState()).assetPositions.find((p) => p.position.coin === "ETH");
    expect(left?.position.szi).toBe("0.6");
  });
});

describe("hl trade --stop (sim)", () => {
  it("the filled order's size rests as a reduce-only stop at the given trigger; a stop on the wrong side is refused first", async () => {
    const client = await newClient();
    const filled = await client.marketOrder({ instrument: "SOL-PERP", side: "buy", size: "3" });
    expect(filled.status).toBe("filled");
    if (filled.status !== "filled") return;
    const px = Number(filled.avgPx);
    expect(() => checkTradeStop("buy", String(px * 1.01), filled.avgPx)).toThrow(/must be below/);
    const stopPx = (px * 0.9).toFixed(2);
    checkTradeStop("buy", stopPx, filled.avgPx);
    const answer = await placeTradeStop(new HlBackstopPort(client), {
      coin: "SOL",
      orderSide: "buy",
      size: filled.totalSz,
      stopPx,
      orderKey: filled.order.cloid!,
    });
    expect(answer.status).toBe("resting");
    const [stop] = await triggers(client);
    expect(stop).toMatchObject({
      coin: "SOL",
      side: "A",
      sz: "3",
      reduceOnly: true,
      orderType: "Stop Market",
    });
    expect(Number(stop!.triggerPx)).toBe(Number(stopPx));
  });
});

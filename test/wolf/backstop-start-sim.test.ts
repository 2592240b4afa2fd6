import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { AlertEvent, Alerter } from "../../src/alerts/webhook.ts";
import type { HlClient } from "../../src/exchange/index.ts";
import { backstopCloid } from "../../src/guard/backstop.ts";
import { type SimWorld, startSimWorld } from "../../src/sim/world.ts";
import { HlWolfPort } from "../../src/wolf/hl-port.ts";
import type { ExchangePosition } from "../../src/wolf/port.ts";
import { openWolfRunner, simPaperClient, until } from "../support/sim-wolf.ts";

/**
 * WOLF on the sim world: its exchange stops around a start (what the start leaves unread, and a stop
 * that fires meanwhile), and its entries on HIP-3 dexes, where a new account keeps each dex's USDC
 * apart, so the port first does what a live user must (dex-margin.ts).
 */

let world: SimWorld;
const clients: HlClient[] = [];

beforeAll(async () => {
  world = await startSimWorld({ ipWeightLimit: false, seed: 41 });
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

async function triggers(client: HlClient, coin: string) {
  return (await client.frontendOpenOrdersAllDexes()).filter((o) => o.isTrigger && o.coin === coin);
}

function collect(): { alerter: Alerter; alerts: { event: AlertEvent; text: string }[] } {
  const alerts: { event: AlertEvent; text: string }[] = [];
  return {
    alerts,
    alerter: { send: (event, text) => void alerts.push({ event, text }), flush: async () => undefined },
  };
}

it("a stale stop of WOLF's own on a HIP-3 dex it holds no position on is cancelled when a new slot opens there; one stop rests for the slot", async () => {
  const client = await newClient();
  const coin = "yex:VXX";
  // An earlier run's slot on yex:VXX: its position and its stop; the slot closed, then a crash before
  // the stop's cancel. The reduce-only stop rests on a dex where the account holds nothing.
  // Margined from the main balance, as the account's own runs would have set it up (dex-margin.ts).
  await client.enableDexAbstraction();
  expect((await client.marketOrder({ instrument: coin, side: "buy", size: "20" })).status).toBe("filled");
  const mid = Number((await client.allMidsMerged())[coin]);
  const stale = backstopCloid("wolf", "wolf-0-1");
  const placed = await client.placeStop({
    instrument: coin,
    side: "sell",
    size: "20",
    triggerPx: (mid * 0.999).toFixed(3),
    cloid: stale,
  });
  expect(placed.status).toBe("resting");
  const closed = await client.marketOrder({ instrument: coin, side: "sell", size: "20", reduceOnly: true });
  expect(closed.status).toBe("filled");

  // The restart: nothing open, so the start does not read yex (the weight saving) and the stop stays.
  const runner = await openWolfRunner(
    new HlWolfPort(client),
    mkdtempSync(join(tmpdir(), "stale-stop-")),
    {},
    {
      stream: false,
    },
  );
  try {
    await runner.settled();
    expect((await triggers(client, coin)).map((o) => o.cloid)).toEqual([stale]);

    const listed = () =>
      world.weight().addresses.reduce((w, a) => w + (a.byKind["info:frontendOpenOrders"]?.weight ?? 0), 0);
    const listedBefore = listed();
    await runner.enter({
      slot_id: 0,
      coin,
      direction: "long",
      source: "test",
      score: 90,
      priority: 1,
      reason: "test entry",
    });
    await runner.settled();
    // One read of yex's orders (weight 20), none of the other dexes.
    expect(listed() - listedBefore).toBe(20);
    const slot = runner.state.slots[0]!;
    expect(slot.status).toBe("active");
    // The stale stop (just under the market, sized for the old position) would have closed the new
    // slot at the first dip; only the new slot's own stop rests.
    const resting = await triggers(client, coin);
    expect(resting.map((o) => o.cloid)).toEqual([backstopCloid("wolf", slot.dsl_position_id)]);
    expect(slot.backstop).toMatchObject({ status: "resting" });
  } finally {
    await runner.close();
  }
});

/** A WOLF port whose first positions read is answered, then the market runs through the slot's stop. */
class StopFiresDuringStart extends HlWolfPort {
  private armed = true;
  constructor(
    client: HlClient,
    private readonly fire: () => Promise<void>,
  ) {
    super(client);
  }
  override async positions(): Promise<ExchangePosition[]> {
    const seen = await super.positions();
    if (this.armed) {
      this.armed = false;
      await this.fire();
    }
    return seen;
  }
}

it("a slot's stop that fires while a trader starts: no 'NOT protected' alert for the closed position, and the slot closes from the fill", async () => {
  const client = await newClient();
  const dataDir = mkdtempSync(join(tmpdir(), "stop-fires-"));
  expect((await client.marketOrder({ instrument: "AVAX-PERP", side: "buy", size: "10" })).status).toBe(
    "filled",
  );
  const first = await openWolfRunner(new HlWolfPort(client), dataDir, {}, { stream: false });
  await first.settled();
  const trigger = Number(first.state.slots.find((s) => s.coin === "AVAX")!.backstop!.triggerPx);
  await first.close();

  const fire = async () => {
    world.setPrice("AVAX", String(trigger * 0.98));
    await until("the exchange stop closed AVAX", 3000, async () => {
      const st = await client.clearinghouseState();
      return st.assetPositions.some((p) => p.position.coin === "AVAX") ? undefined : true;
    });
  };
  const { alerter, alerts } = collect();
  const runner = await openWolfRunner(
    new StopFiresDuringStart(client, fire),
    dataDir,
    {},
    {
      stream: false,
      alerter,
    },
  );
  try {
    await runner.settled();
    expect(alerts.filter((a) => a.event === "backstop")).toEqual([]);
    const slot = runner.state.slots.find((s) => s.coin === "AVAX")!;
    expect(slot.backstop?.status).not.toBe("refused");
    expect(await triggers(client, "AVAX")).toEqual([]);
    // The next reconciliation books the close from the stop's fill.
    await runner.reconcile();
    await runner.settled();
    expect(runner.state.slots.every((s) => s.status === "empty")).toBe(true);
    expect(runner.state.closed_slots.at(-1)!.instrument).toBe("AVAX-PERP");
  } finally {
    await runner.close();
  }
});

it("an entry on a HIP-3 dex turns dex abstraction on for a new account, and its IOC fills from the main balance", async () => {
  const client = await newClient();
  const port = new HlWolfPort(client);
  expect(await client.userDexAbstraction()).toBeNull();
  await port.setLeverage("xyz:XYZ100", 5);
  expect(await client.userDexAbstraction()).toBe(true);
  const r = await port.ioc({
    coin: "xyz:XYZ100",
    side: "buy",
    size: "0.01",
    slippage: 0.05,
    reduceOnly: false,
    cloid: "0x000000000000000000000000000000a1",
  });
  expect(r.status).toBe("filled");
});

it("an entry on a HIP-3 dex the user keeps apart and left empty fails with one readable line", async () => {
  const client = await newClient();
  await client.clearinghouseState(); // the paper account's deposit
  await client.exchangeClient!.userSetAbstraction({ user: client.address!, abstraction: "disabled" });
  await expect(new HlWolfPort(client).setLeverage("yex:VXX", 2)).rejects.toThrow(
    "the account keeps each dex's USDC apart (dex abstraction off) and holds none on the yex dex: move USDC there (hl dex send AMOUNT --to yex) or turn dex abstraction on (hl dex abstraction on)",
  );
});

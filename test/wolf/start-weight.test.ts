import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backstopCloid } from "../../src/guard/backstop.ts";
import { HlBackstopPort } from "../../src/guard/hl-backstops.ts";
import { type SimWorld, startSimWorld } from "../../src/sim/world.ts";
import { simPaperClient } from "../support/sim-wolf.ts";
import { START_WEIGHT_SLOTS, StartWeightBench } from "../support/start-weight.ts";

/**
 * What one trading process's start may spend of the IP's 1200 weight a minute, with slots open on two
 * dexes: a restart loop (a supervisor restarting a trader, the guard job started beside it) must
 * leave the minute to protection. Measured: 98 (guard-only job) and 92 (WOLF); 152 and 146 before.
 */
const START_WEIGHT_MAX = 100;

let world: SimWorld;
let bench: StartWeightBench;

beforeAll(async () => {
  world = await startSimWorld({ ipWeightLimit: false, seed: 31 });
  bench = new StartWeightBench(world);
  await bench.openSlots();
}, 20_000);
afterAll(async () => {
  await bench.close();
  await world.close();
});

describe("a trading process's start weight (slots on the main dex and on xyz)", () => {
  it(`the guard-only job's start spends at most ${START_WEIGHT_MAX} and finds every slot's stop resting`, async () => {
    const spent = await bench.guardStart();
    expect(spent.guarded).toEqual(START_WEIGHT_SLOTS.map(() => "resting"));
    expect(spent.total, JSON.stringify(spent.byKind)).toBeLessThanOrEqual(START_WEIGHT_MAX);
  });

  it(`WOLF's start (hl wolf run before its first tick) spends at most ${START_WEIGHT_MAX} and adopts every stop`, async () => {
    const resting = await bench.restingStopOids();
    expect(resting).toHaveLength(START_WEIGHT_SLOTS.length);
    const spent = await bench.wolfStart();
    // The same orders, adopted by their cloids: none placed again.
    expect(spent.adopted.sort()).toEqual(resting.sort());
    expect(spent.total, JSON.stringify(spent.byKind)).toBeLessThanOrEqual(START_WEIGHT_MAX);
  });
});

// What lets a start leave dexes unread, with no stop that matters missed.
it("the resting stops are read on the main dex, the asked coins' dexes and every dex with a position", async () => {
  const client = await simPaperClient(world);
  const port = new HlBackstopPort(client);
  const coin = "xyz:XYZ100";
  const mid = Number((await client.allMidsMerged())[coin]);
  // Margined from the main balance, as the account's own runs would have set it up (dex-margin.ts).
  await client.enableDexAbstraction();
  const open = await client.marketOrder({ instrument: coin, side: "buy", size: "0.1" });
  expect(open.status).toBe("filled");
  const cloid = backstopCloid("wolf", "dexes-test");
  const placed = await port.placeStop({
    coin,
    side: "long",
    size: "0.1",
    triggerPx: String(Math.round(mid * 0.9)),
    cloid,
  });
  expect(placed.status).toBe("resting");
  const listed = async (coins?: string[]) => (await port.restingStops(coins)).map((r) => r.cloid);

  // A position on xyz: its stops are read with no coin asked (an orphan there could close it).
  expect(await listed()).toEqual([cloid]);

  // The position closed by hand, the reduce-only stop rests on a dex with no position: left unread…
  const close = await client.marketOrder({ instrument: coin, side: "sell", size: "0.1", reduceOnly: true });
  expect(close.status).toBe("filled");
  expect(await listed()).toEqual([]);
  // …unless its coin is one the caller guards,
  expect(await listed([coin])).toEqual([cloid]);
  // …and read again once the dex holds a position.
  expect((await client.marketOrder({ instrument: coin, side: "buy", size: "0.1" })).status).toBe("filled");
  expect(await listed()).toEqual([cloid]);
  await client.close();
});

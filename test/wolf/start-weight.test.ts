import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SimWorld, startSimWorld } from "../../src/sim/world.ts";
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

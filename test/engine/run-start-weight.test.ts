import { afterAll, beforeAll, expect, it } from "vitest";
import { type SimWorld, startSimWorld } from "../../src/sim/world.ts";
import { RunStartWeightBench } from "../support/run-start-weight.ts";

/**
 * What `hl run --dsl` spends of the IP's 1200 a minute from its start to its first tick's end and its
 * stop, restarted with a fill to reconcile, an order to adopt and its exchange stop resting. Measured:
 * 112; 118 while its stop's listing read the account on every dex; 198 while its open orders were
 * read three times over REST (start, backstop, stop) and its fills twice. The bound leaves room for
 * one REST read more when a push is slow on a busy machine.
 */
const RUN_START_WEIGHT_MAX = 140;
/**
 * What `hl run --dry-run` spends from its start to its first tick's end and its stop on that account
 * (its paper account, leverage and fee rates read from the network, the builder looked up as live).
 * Measured: 108 on an account holding the market (128 without: its leverage is then read on its
 * own). It was 178: the public tape read twice (25 each) before any paper order rested for it to fill, and
 * the leverage read on its own (`activeAssetData`, 20) though the account's state carries it for a
 * market with a position.
 */
const DRY_RUN_START_WEIGHT_MAX = 140;

let world: SimWorld;
let bench: RunStartWeightBench;

beforeAll(async () => {
  world = await startSimWorld({ ipWeightLimit: false, seed: 37 });
  bench = new RunStartWeightBench(world);
}, 20_000);
afterAll(async () => {
  await bench.close();
  await world.close();
});

it(`hl run's restart (start, first tick, stop) spends at most ${RUN_START_WEIGHT_MAX} and misses nothing`, async () => {
  const { stops: before } = await bench.prepare();
  expect(before).toHaveLength(1);
  const spent = await bench.restart();
  const { result, lines } = spent;
  // The fill made while down is reconciled, once, and the cursor moves past it.
  expect(lines).toContain("reconciled 1 fill(s) made while the engine was down");
  expect(result.position.net_qty).toBe(spent.positionQty);
  expect(result.stats.fill_cursor.time_ms).toBeGreaterThanOrEqual(spent.missedFillMs);
  // The resting order of the earlier run is adopted (then requoted or cancelled at the stop).
  expect(lines).toContain("adopted 1 resting order(s) from a previous run");
  // The exchange stop is found again by its cloid: still exactly one, none placed beside it.
  expect(spent.stops.map((s) => s.cloid)).toEqual(before.map((s) => s.cloid));
  expect(lines.filter((l) => /fail|could not/i.test(l))).toEqual([]);
  // The account is read twice (the paper session's first read, the position): its stop's listing reads
  // its market's dex alone, not the account on every dex for positions it would not look at.
  expect(spent.byKind["info:clearinghouseState"], JSON.stringify(spent.byKind)).toBe(4);
  expect(spent.total, JSON.stringify(spent.byKind)).toBeLessThanOrEqual(RUN_START_WEIGHT_MAX);
}, 20_000);

it(`hl run --dry-run's start (start, first tick, stop) spends at most ${DRY_RUN_START_WEIGHT_MAX}, its account read in full`, async () => {
  // After the restart above: the account holds ETH, whose leverage its state carries.
  const spent = await bench.dryRun();
  expect(spent.lines.filter((l) => /fail|could not/i.test(l))).toEqual([]);
  expect(spent.lines.some((l) => / 2 sent 0 filled 0 cancelled 0 rejected /.test(l))).toBe(true);
  // Its account state and fee rates are read once each; the tape, with nothing of its own resting, never.
  expect(spent.byKind).toMatchObject({ "info:clearinghouseState": 4, "info:userFees": 20 });
  expect(spent.byKind["info:recentTrades"], JSON.stringify(spent.byKind)).toBeUndefined();
  expect(spent.total, JSON.stringify(spent.byKind)).toBeLessThanOrEqual(DRY_RUN_START_WEIGHT_MAX);
}, 20_000);

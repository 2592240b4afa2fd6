import { startSimWorld } from "../src/sim/world.ts";
import { RunStartWeightBench } from "../test/support/run-start-weight.ts";
import { StartWeightBench } from "../test/support/start-weight.ts";
import type { BenchReporter } from "./harness.ts";

/**
 * Request weight one trading process's start spends (of the IP's 1200 a minute), on an account with
 * WOLF slots open on the main dex and on xyz (the sim's three dexes): `hl agent guard` (the guard-only
 * job, up to its first price poll) and `hl wolf run` up to its first tick; and `hl run --dsl`
 * (a DSL stop) restarted on its own account (a fill to reconcile, an order to adopt, its exchange stop resting),
 * from its start to its first tick's end and its stop, and `hl run --dry-run` on that account (its
 * paper account and fee rates read from the network). A restart loop of seven such starts must
 * leave most of the minute to protection.
 */
export default async function (r: BenchReporter): Promise<void> {
  const weight = (name: string, value: number, atMost: number) =>
    r.figure({ name, value, unit: "weight", target: { op: "<=", value: atMost } });
  const world = await startSimWorld({ ipWeightLimit: false, seed: 31 });
  const bench = new StartWeightBench(world);
  try {
    await bench.openSlots();
    const guard = await bench.guardStart();
    weight("start weight: hl agent guard", guard.total, 100);
    const wolf = await bench.wolfStart();
    weight("start weight: hl wolf run (before its first tick)", wolf.total, 100);
    const run = new RunStartWeightBench(world);
    try {
      await run.prepare();
      const restart = await run.restart();
      weight("start weight: hl run with a DSL stop, restarted (start, first tick, stop)", restart.total, 140);
      // On the account the restart left holding ETH. It was 178: the public tape read twice (25 each)
      // before any paper order rested for it to fill, and the leverage read on its own (activeAssetData,
      // 20) though the account's state carries it for a market with a position (without one it still
      // is: 20 more). Held to the same 140 as the restart (test/engine/run-start-weight.test.ts).
      const dry = await run.dryRun();
      weight("start weight: hl run --dry-run (start, first tick, stop)", dry.total, 140);
    } finally {
      await run.close();
    }
  } finally {
    await bench.close();
    await world.close();
  }
}

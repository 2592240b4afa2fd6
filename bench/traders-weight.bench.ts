import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BrokerBudget } from "../src/exchange/broker-budget.ts";
import { CRITICAL_RESERVE_SHARE, RateBudget } from "../src/exchange/budget.ts";
import { startWeightBroker } from "../src/exchange/weight-broker.ts";
import { UP_WEIGHT_SHARES } from "../src/services/up/plan.ts";
import { startSimWorld } from "../src/sim/world.ts";
import { HouseTradersRig, meanGapS, spentBetween } from "../test/support/house-traders.ts";
import type { BenchReporter } from "./harness.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Where the weight of `hl up`'s traders process goes: its four house agents (their `hl run`
 * arguments from hl up's plan, 5 s ticks) on a sim world, each agent's requests metered apart.
 * First each with a budget it never fills (what the agents ask for: weight per minute by request
 * kind, per agent), then all four on one budget the size of the traders' share
 * (UP_WEIGHT_SHARES.houses, the reserve kept, told to a weight broker, as in the process): the
 * seconds between ticks it allows and, the share just spent, the Ctrl-C to every agent stopped
 * (cancels and last fills included). TRADERS_WEIGHT_BENCH_S sets each measured window (default
 * 60 s; on the share from 65 s after every agent's first tick, once the starts' weight has left
 * the budget's window).
 */
export default async function (r: BenchReporter): Promise<void> {
  const windowS = Number(process.env.TRADERS_WEIGHT_BENCH_S) || 60;
  const world = await startSimWorld({ ipWeightLimit: false, seed: 7 });
  try {
    const free = new HouseTradersRig(world, () => new RateBudget({ weightPerMinute: 1e6 }));
    try {
      const perMinute = await measure(free, windowS, 10);
      r.figure({
        name: "traders, unbounded: start to every agent's first tick",
        value: perMinute.startedS,
        unit: "s",
      });
      r.figure({
        name: "traders, unbounded: weight of the four starts (to every first tick)",
        value: perMinute.startSpent.reduce((a, b) => a + b, 0),
        unit: "weight",
      });
      let all = 0;
      for (const [i, a] of free.agents.entries()) {
        const kinds = perMinute.byAgent[i]!;
        const total = Object.values(kinds).reduce((s, v) => s + v, 0);
        all += total;
        r.figure({
          name: `traders, unbounded: ${a.name} ${a.args.strategy} ${a.args.instrument} weight/min`,
          value: total,
          unit: "weight/min",
        });
        for (const [kind, w] of Object.entries(kinds).sort((x, y) => y[1] - x[1]))
          r.figure({ name: `  ${a.name} ${kind}`, value: w, unit: "weight/min" });
        r.figure({ name: `  ${a.name} seconds between ticks`, value: perMinute.gapS[i]!, unit: "s" });
      }
      r.figure({
        name: "traders, unbounded: four house agents together",
        value: all,
        unit: "weight/min",
        target: { op: "<=", value: UP_WEIGHT_SHARES.houses * (1 - CRITICAL_RESERVE_SHARE) },
      });
    } finally {
      await free.close();
    }

    const share = new RateBudget({
      weightPerMinute: UP_WEIGHT_SHARES.houses,
      reserveShare: CRITICAL_RESERVE_SHARE,
    });
    // As under hl up: the share is the fallback of a budget told to (and, at a stop, granted by) the broker.
    const brokerDir = mkdtempSync(join(tmpdir(), "traders-weight-broker-"));
    const broker = await startWeightBroker({ socketPath: join(brokerDir, "broker.sock") });
    const budget = new BrokerBudget({ socketPath: broker.socketPath, api: world.url, fallback: share });
    const bound = new HouseTradersRig(world, () => budget);
    try {
      const perMinute = await measure(bound, windowS, 65);
      r.figure({
        name: `traders, on the ${UP_WEIGHT_SHARES.houses} share: start to every agent's first tick`,
        value: perMinute.startedS,
        unit: "s",
      });
      let all = 0;
      for (const [i, a] of bound.agents.entries()) {
        const total = Object.values(perMinute.byAgent[i]!).reduce((s, v) => s + v, 0);
        all += total;
        r.figure({
          name: `traders, on the ${UP_WEIGHT_SHARES.houses} share: ${a.name} seconds between ticks`,
          value: perMinute.gapS[i]!,
          unit: "s",
          target: { op: "<=", value: 6 },
        });
      }
      r.figure({
        name: `traders, on the ${UP_WEIGHT_SHARES.houses} share: weight/min spent`,
        value: all,
        unit: "weight/min",
      });
      // Ctrl-C with the share spent for the minute (a stop's reads must not wait for it).
      budget.charge(UP_WEIGHT_SHARES.houses);
      r.figure({
        name: `traders, on the ${UP_WEIGHT_SHARES.houses} share, spent: Ctrl-C to every agent stopped`,
        value: (await bound.stopAll()) / 1000,
        unit: "s",
        target: { op: "<=", value: 2 },
      });
    } finally {
      await bound.close();
      await broker.close();
      rmSync(brokerDir, { recursive: true, force: true });
    }
  } finally {
    await world.close();
  }
}

/**
 * Starts the rig and waits (at most 3 min) until every agent has ticked, then `settleS` more (on a
 * share, long enough for the starts' weight to leave the budget's window); then measures
 * `windowS` seconds: weight per minute by kind, per agent, and the seconds between ticks.
 */
async function measure(rig: HouseTradersRig, windowS: number, settleS: number) {
  const t0 = Date.now();
  await rig.start();
  while (rig.agents.some((a) => a.tickTimes.length === 0) && Date.now() - t0 < 180_000) await sleep(500);
  const startedS = (Date.now() - t0) / 1000;
  const startSpent = rig.spentByAgent();
  await sleep(settleS * 1000);
  const before = rig.spentByAgent();
  const ticksFrom = rig.agents.map((a) => a.tickTimes.length);
  await sleep(windowS * 1000);
  const after = rig.spentByAgent();
  const scale = 60 / windowS;
  return {
    startedS,
    startSpent: startSpent.map((kinds) => Object.values(kinds).reduce((s, v) => s + v, 0)),
    byAgent: after.map((a, i) =>
      Object.fromEntries(
        Object.entries(spentBetween(before[i]!, a)).map(([k, v]) => [k, Math.round(v * scale)]),
      ),
    ),
    gapS: rig.agents.map((a, i) => meanGapS(a.tickTimes.slice(Math.max(0, ticksFrom[i]! - 1)))),
  };
}

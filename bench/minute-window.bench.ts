import { RateBudget } from "../src/exchange/budget.ts";
import { IpWeightLimiter } from "../src/sim/server/ip-weight.ts";
import { WeightMeter } from "../src/sim/server/weight-meter.ts";
import type { BenchReporter } from "./harness.ts";

/**
 * The cost of the one-minute windows on every request: the sim world's per-IP weight check and
 * meter (each /info and /exchange request), and a client budget's spend and room check. A clock
 * advancing 0.07 ms a request (about 15,000 requests a second, the sim's /info throughput) from two
 * source addresses; best of five rounds of 1,000,000.
 */
const N = 1_000_000;
const ROUNDS = 5;

function nsPerOp(run: (clock: { t: number }) => void): number {
  let best = Number.POSITIVE_INFINITY;
  for (let r = 0; r < ROUNDS; r++) {
    const clock = { t: 1.79e12 };
    const start = performance.now();
    run(clock);
    best = Math.min(best, ((performance.now() - start) * 1e6) / N);
  }
  return best;
}

export default async function bench(report: BenchReporter): Promise<void> {
  const limiter = nsPerOp((clock) => {
    const l = new IpWeightLimiter(1e12, () => clock.t);
    for (let i = 0; i < N; i++) {
      clock.t += 0.07;
      if (!l.take(i % 4 === 0 ? "a" : "b", 2)) throw new Error("refused under an unbounded limit");
      if (i % 10 === 0) l.charge("a", 1);
    }
  });
  report.figure({
    name: "sim per-IP weight check (take, 1 in 10 charged after)",
    value: limiter,
    unit: "ns/request",
    target: { op: "<", value: 1000 },
  });

  const meter = nsPerOp((clock) => {
    const m = new WeightMeter(() => clock.t);
    for (let i = 0; i < N; i++) {
      clock.t += 0.07;
      m.spend(i % 4 === 0 ? "a" : "b", "info:allMids", 2);
    }
  });
  report.figure({
    name: "sim weight meter spend",
    value: meter,
    unit: "ns/request",
    target: { op: "<", value: 1000 },
  });

  const budget = nsPerOp((clock) => {
    const b = new RateBudget({ weightPerMinute: 1e12, now: () => clock.t });
    let room = 0;
    for (let i = 0; i < N; i++) {
      clock.t += 0.07;
      b.charge(2, { background: i % 2 === 0 });
      room = b.available();
    }
    if (!(room > 0)) throw new Error("no room under an unbounded budget");
  });
  report.figure({
    name: "client budget charge + room check",
    value: budget,
    unit: "ns/request",
    target: { op: "<", value: 1000 },
  });
}

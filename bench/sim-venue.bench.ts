import { createVenue } from "../src/sim/venue/index.ts";
import type { BenchReporter } from "./harness.ts";
import { scenario } from "./matching.bench.ts";

/**
 * Two costs every sim world pays all the time, in CPU µs (robust to other load on the machine):
 * `advance` between candle buckets (the world advances its venue several times a second, every market
 * each time), and a `userFills` answer of 2,000 fills (a trader's fill sync, a dashboard's refresh),
 * each fill with its transaction hash.
 */
const ADVANCES = 20_000;
const ANSWERS = 300;

function cpuMicros(run: () => void): number {
  const c0 = process.cpuUsage();
  run();
  const c = process.cpuUsage(c0);
  return c.user + c.system;
}

export default async function (r: BenchReporter): Promise<void> {
  let now = Date.UTC(2026, 10, 22);
  const venue = createVenue({ seed: 1, clock: () => now, startingBalance: "100000000" });
  const { steps, users } = scenario(90_000, 7);
  for (const u of users) venue.info({ type: "clearinghouseState", user: u });
  for (const s of steps) venue.exchange(s.action, s.user, ++now);

  // Within one minute's bucket: 1 ms steps, as between the world's ticks.
  now = Math.floor(now / 60_000) * 60_000 + 1;
  for (let i = 0; i < 1_000; i++) venue.advance(now + (i % 50_000));
  const advance = cpuMicros(() => {
    for (let i = 0; i < ADVANCES; i++) venue.advance(now + (i % 50_000));
  });
  r.figure({
    name: "sim venue: advance within a candle bucket (CPU)",
    value: advance / ADVANCES,
    unit: "µs",
  });

  const busiest = users
    .map((user) => ({ user, n: (venue.info({ type: "userFills", user }) as unknown[]).length }))
    .sort((a, b) => b.n - a.n)[0]!;
  if (busiest.n < 2_000) throw new Error(`only ${busiest.n} fills for the busiest user`);
  for (let i = 0; i < 20; i++) venue.info({ type: "userFills", user: busiest.user });
  const answers = cpuMicros(() => {
    for (let i = 0; i < ANSWERS; i++) venue.info({ type: "userFills", user: busiest.user });
  });
  r.figure({
    name: "sim venue: userFills answer of 2,000 fills (CPU)",
    value: answers / ANSWERS,
    unit: "µs",
  });
}

/**
 * The sim world's clock: wall time scaled by `speed`, plus whatever tests skip ahead with
 * `advance`. Monotonic by construction (both terms only grow).
 */
export interface SimClock {
  now(): number;
  readonly speed: number;
  /** Jump forward by `ms` of sim time. */
  advance(ms: number): void;
}

export function createSimClock(
  opts: { startMs?: number; speed?: number; wallNow?: () => number } = {},
): SimClock {
  const wallNow = opts.wallNow ?? Date.now;
  const speed = opts.speed ?? 1;
  if (!(speed > 0) || !Number.isFinite(speed))
    throw new Error(`sim speed must be a positive number, got ${speed}`);
  const wallStart = wallNow();
  const startMs = opts.startMs ?? wallStart;
  let skipped = 0;
  return {
    speed,
    now: () => Math.floor(startMs + (wallNow() - wallStart) * speed + skipped),
    advance(ms) {
      if (!(ms >= 0) || !Number.isFinite(ms)) throw new Error(`cannot advance the sim clock by ${ms} ms`);
      skipped += ms;
    },
  };
}

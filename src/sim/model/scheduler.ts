import type { SimClock } from "./clock.ts";
import type { HouseDriver } from "./house-driver.ts";
import type { MarketModel } from "./market-model.ts";

/**
 * Drives the sim world on its clock: on every wake-up the model catches up to the clock's time, the
 * house pushes prices and quotes into the venue, and the venue processes the time that passed
 * (funding, day rollovers). `advance` skips ahead in bounded chunks so hourly funding sees the book
 * of each hour, not just the last one.
 */
export class SimScheduler {
  private timer: NodeJS.Timeout | undefined;
  private running = false;

  constructor(
    private readonly clock: SimClock,
    private readonly model: MarketModel,
    private readonly driver: HouseDriver,
    /** Called after every catch-up with the sim time reached. */
    private readonly onTime: (nowMs: number) => void,
    private readonly wakeEveryMs = 200,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.catchUp(), this.wakeEveryMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Bring model, house and venue up to the clock's current time. */
  catchUp(): void {
    if (this.running) return;
    this.running = true;
    try {
      const now = this.clock.now();
      if (this.model.advanceTo(now) > 0) this.driver.sync();
      this.onTime(now);
    } finally {
      this.running = false;
    }
  }

  /** Skip `ms` of sim time forward, running the world through it. */
  advance(ms: number): void {
    if (!(ms >= 0) || !Number.isFinite(ms)) throw new Error(`cannot advance by ${ms} ms`);
    const chunk = ms > 3_600_000 ? 300_000 : 60_000;
    let left = ms;
    while (left > 0) {
      const step = Math.min(chunk, left);
      this.clock.advance(step);
      left -= step;
      this.catchUp();
    }
  }
}

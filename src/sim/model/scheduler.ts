import type { SimClock } from "./clock.ts";
import type { HouseDriver } from "./house-driver.ts";
import type { WorldModel } from "./world-model.ts";

/**
 * Drives the sim world on its clock: on every wake-up the model catches up to the clock's time, the
 * house pushes prices and quotes into the venue, and the venue processes the time that passed
 * (funding, day rollovers). `advance` skips ahead in bounded chunks so hourly funding sees the book
 * of each hour, not just the last one.
 */
/**
 * Wall time a real-time turn of world work may run before it yields to waiting requests. One unit of
 * work (a market's requote, one taker order, the venue's clock) takes about 0.1 ms.
 */
const TURN_BUDGET_MS = 0.25;

export class SimScheduler {
  private timer: NodeJS.Timeout | undefined;
  /** A real-time sync is being spread over event-loop turns. */
  private slicing = false;

  constructor(
    private readonly clock: SimClock,
    private readonly model: WorldModel,
    private readonly driver: HouseDriver,
    /** Called after every catch-up with the sim time reached. */
    private readonly onTime: (nowMs: number) => void,
    private readonly wakeEveryMs = 200,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.tick(), this.wakeEveryMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /**
   * Bring model, house and venue up to the clock's current time, all at once. The venue samples its
   * books (funding premium) after the house requotes and before the taker flow eats into them, as it
   * would between trades in real time.
   */
  catchUp(): void {
    const now = this.clock.now();
    const moved = this.model.advanceTo(now) > 0;
    if (moved) this.driver.syncMarkets(0, this.driver.marketCount);
    this.onTime(now);
    if (moved) this.driver.sendTakers();
  }

  /** Skip `ms` of sim time forward, running the world through it. */
  advance(ms: number): void {
    if (!(ms >= 0) || !Number.isFinite(ms)) throw new Error(`cannot advance by ${ms} ms`);
    // Finer steps for short skips (tests look at minutes), coarser for days (funding only needs hours).
    const chunk = ms > 7 * 86_400_000 ? 900_000 : ms > 3_600_000 ? 300_000 : 60_000;
    let left = ms;
    while (left > 0) {
      const step = Math.min(chunk, left);
      this.clock.advance(step);
      left -= step;
      this.catchUp();
    }
  }

  /**
   * The real-time wake-up: the same work as catchUp, in the same order, as small units run a few per
   * event-loop turn (TURN_BUDGET_MS of wall time), so requests arriving meanwhile wait behind one
   * short unit rather than the whole house.
   */
  private tick(): void {
    if (this.slicing) return;
    const now = this.clock.now();
    if (this.model.advanceTo(now) === 0) {
      this.onTime(now);
      return;
    }
    const work: (() => void)[] = [];
    for (let i = 0; i < this.driver.marketCount; i++) work.push(() => this.driver.syncMarkets(i, i + 1));
    work.push(() => this.onTime(this.clock.now()));
    work.push(() => {
      for (const order of this.driver.takerOrders()) work.push(() => this.driver.sendTaker(order));
    });
    this.slicing = true;
    let next = 0;
    const turn = () => {
      if (!this.timer) {
        this.slicing = false;
        return;
      }
      const started = performance.now();
      do work[next++]!();
      while (next < work.length && performance.now() - started < TURN_BUDGET_MS);
      if (next < work.length) setImmediate(turn);
      else this.slicing = false;
    };
    turn();
  }
}

import { markDslClosed } from "../guard/dsl.ts";
import {
  followRunStop,
  type RunStopConfig,
  type RunStopPosition,
  stepRunStop,
} from "../guard/position-stop.ts";
import { type DslGuardFile, loadGuard, saveGuard } from "../guard/store.ts";

/**
 * The engine's DSL stop: the pure step of src/guard/position-stop.ts plus its guard file (atomic,
 * with a last-good copy), so the high water, tier and breaches survive a restart.
 */
export class RunStop {
  private guard: DslGuardFile | null;

  constructor(
    private readonly config: RunStopConfig,
    private readonly dir: string,
    private readonly positionId: string,
    private readonly instrument: string,
  ) {
    const loaded = loadGuard(dir, positionId);
    this.guard = loaded.kind === "ok" ? loaded.guard : null;
  }

  /** One price: the reason to close now, if the stop is breached. */
  onPrice(position: RunStopPosition, price: number, nowMs: number): { reason: string } | null {
    const step = stepRunStop(
      this.config,
      { positionId: this.positionId, instrument: this.instrument },
      this.guard,
      position,
      price,
      nowMs,
    );
    if (step.guard) {
      this.guard = step.guard;
      saveGuard(this.dir, step.guard);
    } else if (this.guard && !this.guard.state.closed) {
      // Flat without the stop (the strategy or someone else closed it): retire the guard.
      this.closed(price, "position closed", nowMs);
    }
    return step.close;
  }

  /**
   * The position changed with no new price (the tick's own fills): the guard follows it (a new one
   * if it opened or flipped; entry and size otherwise) without judging a price, so the exchange stop
   * can cover it before the next tick. Flat: left for the next price, which retires it.
   */
  follow(position: RunStopPosition, nowMs: number): void {
    const guard = followRunStop(
      this.config,
      { positionId: this.positionId, instrument: this.instrument },
      this.guard,
      position,
      nowMs,
    );
    if (!guard) return;
    this.guard = guard;
    saveGuard(this.dir, guard);
  }

  closed(price: number, reason: string, nowMs: number): void {
    if (!this.guard) return;
    this.guard = { ...this.guard, state: markDslClosed(this.guard.state, price, reason, nowMs) };
    saveGuard(this.dir, this.guard);
  }
}

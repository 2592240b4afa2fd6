/**
 * The engine's wait between two ticks, during which the fills a venue pushes are taken in at once:
 * a push runs `takeIn` (one run at a time; pushes during a run make one more), and the wait ends only
 * once the sleep is over and the run under way has finished, so a tick never overlaps one. A push
 * that came during the tick, after its last fills read, is taken in as the wait begins.
 */
export class PushedFillsWait {
  private pushed = false;
  private nudge: (() => void) | undefined;
  private readonly detach: () => void;

  /** `subscribe` attaches the push listener and returns its detach. */
  constructor(subscribe: (listener: () => void) => () => void) {
    this.detach = subscribe(() => {
      this.pushed = true;
      this.nudge?.();
    });
  }

  async wait(sleep: Promise<void>, takeIn: () => Promise<void>): Promise<void> {
    let slept = false;
    void sleep.then(() => {
      slept = true;
      this.nudge?.();
    });
    for (;;) {
      if (slept) return;
      if (this.pushed) {
        this.pushed = false;
        await takeIn();
        continue;
      }
      await new Promise<void>((resolve) => {
        this.nudge = resolve;
      });
      this.nudge = undefined;
    }
  }

  close(): void {
    this.detach();
  }
}

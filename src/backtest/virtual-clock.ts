/**
 * Market time of a backtest: it moves only when the engine sleeps between ticks, so a run never
 * reads the wall clock and the same inputs replay the same way.
 */
export class VirtualClock {
  constructor(private ms: number) {}

  readonly now = (): number => this.ms;

  /** Time moves forward to `ms` (never back). */
  readonly advanceTo = (ms: number): void => {
    if (ms > this.ms) this.ms = ms;
  };

  /** The engine's wait between ticks: time jumps ahead at once. */
  readonly sleep = (ms: number): Promise<void> => {
    this.ms += ms;
    return Promise.resolve();
  };
}

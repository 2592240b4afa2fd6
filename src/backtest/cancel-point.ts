import { UserError } from "../core/errors.ts";

/**
 * Where a backtest loop may be cancelled. A replay on in-memory data never waits on I/O, so without
 * a pause the event loop would not turn until the run ends and an abort (a client's cancellation, a
 * closed connection) could not arrive: every `every` calls the loop lets it turn once (an event that
 * arrives is seen at the second turn after it: one turn ends in the check phase, before the next
 * timers and poll phases). Once the signal is aborted the next call throws. Only when and how fast the run stops depends on the wall
 * clock; what it computes does not.
 */
export class CancelPoint {
  private calls = 0;

  constructor(
    private readonly signal: AbortSignal,
    private readonly every: number,
  ) {}

  async check(): Promise<void> {
    this.calls += 1;
    if (this.calls % this.every === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    if (this.signal.aborted) throw new UserError("backtest cancelled");
  }
}

/** The engine's wait between ticks, with a cancel point before each. */
export function cancellableSleep(
  sleep: (ms: number) => Promise<void>,
  signal: AbortSignal,
  every = 256,
): (ms: number) => Promise<void> {
  const point = new CancelPoint(signal, every);
  return async (ms) => {
    await point.check();
    return sleep(ms);
  };
}

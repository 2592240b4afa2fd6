import { AsyncLocalStorage } from "node:async_hooks";

/**
 * Reads made on behalf of a run that is asked to stop are given up: a read waiting for its weight
 * (a share spent for the minute, or a broker grant queued behind another process's scan) would
 * otherwise hold the stop up for as long as the wait. Only reads: an order, cancel or stop change
 * already under way is seen through (a signed action that may have landed must not be cut).
 */
const stopScope = new AsyncLocalStorage<AbortSignal>();

/** Runs `work`; every read it makes, however deep, is given up once `signal` aborts. */
export function readsStoppedBy<T>(signal: AbortSignal, work: () => T): T {
  return stopScope.run(signal, work);
}

/** The stop signal of the run the caller reads for, if any. */
export function readStopSignal(): AbortSignal | undefined {
  return stopScope.getStore();
}

/** Runs `work` with its reads seen through whatever stop is asked (a position's protection). */
export function readsSeenThrough<T>(work: () => T): T {
  return stopScope.exit(work);
}

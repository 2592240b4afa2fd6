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

/**
 * The reads a stopping run makes to leave nothing behind (its open orders, to cancel its resting
 * quotes; its last fills, to book them). They are never given up, and they do not wait for the
 * minute their process's share takes to free up when the machine's weight broker has room on the IP
 * (BrokerBudget takes the sooner of the two).
 */
const shutdownScope = new AsyncLocalStorage<true>();

/** Runs `work`; every read it makes, however deep, is a shutdown read. */
export function readsForShutdown<T>(work: () => T): T {
  return stopScope.exit(() => shutdownScope.run(true, work));
}

/** Is the caller reading for a run's shutdown? */
export function isShutdownRead(): boolean {
  return shutdownScope.getStore() === true;
}

import { AsyncLocalStorage } from "node:async_hooks";

/**
 * Work no user is waiting on (WOLF's market scan, scheduled ISFR snapshots, bulk funding history):
 * every read it makes, however deep,
 * queues behind the process's other reads and leaves them half of the budget (RateBudget's
 * background queue), so a registration sent while it runs is answered first.
 */
const background = new AsyncLocalStorage<true>();

export function inBackground<T>(work: () => T): T {
  return background.run(true, work);
}

/** Is the caller running inside `inBackground`? */
export function isInBackground(): boolean {
  return background.getStore() === true;
}

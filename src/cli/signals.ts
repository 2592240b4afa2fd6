import { readsStoppedBy } from "../exchange/stoppable-reads.ts";

/** Resolves at the first SIGINT or SIGTERM: a `serve` command then closes its service. */
export function untilStopSignal(): Promise<void> {
  return new Promise((resolve) => {
    process.once("SIGINT", () => resolve());
    process.once("SIGTERM", () => resolve());
  });
}

/**
 * A `serve` command's life: start it, serve until SIGINT or SIGTERM, then close it. Every read the
 * service makes is given up at the signal (src/exchange/stoppable-reads.ts), so a close that waits
 * for its work in flight (a snapshot, a refresh) does not wait for that work's request weight.
 */
export async function serveUntilStopped(
  start: () => Promise<{ close(): Promise<void> }>,
  stopped: Promise<void> = untilStopSignal(),
): Promise<void> {
  const stop = new AbortController();
  const running = await readsStoppedBy(stop.signal, start);
  await stopped;
  stop.abort();
  await running.close();
}

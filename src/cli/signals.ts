/** Resolves at the first SIGINT or SIGTERM: a `serve` command then closes its service. */
export function untilStopSignal(): Promise<void> {
  return new Promise((resolve) => {
    process.once("SIGINT", () => resolve());
    process.once("SIGTERM", () => resolve());
  });
}

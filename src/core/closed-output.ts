/**
 * `hl … | head`: the reader closed our stdout. That is the reader's choice, not an error, so the
 * command stops the way Ctrl-C stops it (its SIGTERM handlers save state) and exits with status 0.
 * The kernel says so only to a write (EPIPE), so a long-running command prints its progress on stdout.
 * Writes after that point are dropped: nothing is left to read them, and an error raised by a write must
 * never loop through the stray-error logger (the loop that once spun at 100 % CPU).
 */
export function stopWhenOutputCloses(o: { graceMs?: number } = {}): void {
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    silence(process.stdout);
    process.exitCode = 0;
    // A long-running command listens for SIGTERM to stop cleanly; a one-shot command has nothing to save.
    if (process.listenerCount("SIGTERM") === 0) process.exit(0);
    process.emit("SIGTERM", "SIGTERM");
    setTimeout(() => process.exit(0), o.graceMs ?? 15_000).unref();
  };
  process.stdout.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code === "EPIPE" || err.code === "ERR_STREAM_DESTROYED") return stop();
    throw err;
  });
  // stderr closed too (`2>&1 | head`): drop what is written there, never report it (the report is a write).
  process.stderr.on("error", () => silence(process.stderr));
}

/** Replace a stream's write with one that drops the data: the other end is gone. */
function silence(stream: NodeJS.WriteStream): void {
  stream.write = ((_chunk: unknown, encodingOrCb?: unknown, cb?: unknown) => {
    const done = typeof encodingOrCb === "function" ? encodingOrCb : cb;
    if (typeof done === "function") queueMicrotask(() => (done as () => void)());
    return true;
  }) as typeof stream.write;
}

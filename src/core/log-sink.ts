/** Where log lines go: one JSON object per call, ending in a newline. */
export interface LogSink {
  write(line: string): void;
}

const stderrSink: LogSink = {
  write: (line) => {
    process.stderr.write(line);
  },
};
let processSink: LogSink = stderrSink;

/** Where every logger of this process writes now (stderr unless a test collects the lines). */
export function logSink(): LogSink {
  return processSink;
}

/**
 * Send every logger's lines (those made after this call and before) somewhere else than stderr: a
 * test collects them to check that each parses and carries no secret. Returns the sink it replaced.
 */
export function setLogSink(sink: LogSink | undefined): LogSink {
  const previous = processSink;
  processSink = sink ?? stderrSink;
  return previous;
}

/** Fields of one log event (pino's first argument). */
export type LogFields = Record<string, unknown>;

/**
 * What the stores, elections and replica coordination log through: one event per call, as a JSON
 * line. pino's logger fits as it is; `jsonLog` is the default when none is given.
 */
export interface Log {
  info(fields: LogFields, msg: string): void;
  warn(fields: LogFields, msg: string): void;
  error(fields: LogFields, msg: string): void;
}

/** A plain line writer (what older callers pass) or a structured logger. */
export type LogSink = Log | ((line: string) => void);

const LEVELS = { info: 30, warn: 40, error: 50 } as const;

/** One JSON line per event (pino's shape: numeric level, time in ms, msg) written by `write` (stderr). */
export function jsonLog(
  base: LogFields = {},
  write: (line: string) => void = (line) => process.stderr.write(line),
): Log {
  const at =
    (level: keyof typeof LEVELS) =>
    (fields: LogFields, msg: string): void => {
      write(`${JSON.stringify({ level: LEVELS[level], time: Date.now(), ...base, ...fields, msg })}\n`);
    };
  return { info: at("info"), warn: at("warn"), error: at("error") };
}

/** A structured logger from either kind of sink (a line writer gets the message; each says it all). */
export function asLog(sink: LogSink | undefined): Log {
  if (sink === undefined) return jsonLog();
  if (typeof sink !== "function") return sink;
  const line = (_fields: LogFields, msg: string) => sink(msg);
  return { info: line, warn: line, error: line };
}

/** An error's message for a log line or a reason (never its stack). */
export function reason(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

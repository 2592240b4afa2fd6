import { createLogger } from "../core/log.ts";

/** Fields of one log event (pino's first argument). */
export type LogFields = Record<string, unknown>;

/**
 * What the stores, elections and replica coordination log through: one event per call. A service's
 * pino logger (src/core/log.ts) is one; so is the fallback below.
 */
export interface Log {
  info(fields: LogFields, msg: string): void;
  warn(fields: LogFields, msg: string): void;
  error(fields: LogFields, msg: string): void;
}

/** A plain line writer (what older callers pass) or a structured logger. */
export type LogSink = Log | ((line: string) => void);

/**
 * A structured logger from either kind of sink (a line writer gets the message; each says it all).
 * Without one, the code runs outside any service (a library call, a test): it logs through pino as
 * `service` ("db"), in the same format, sink and scrubbing as every service.
 */
export function asLog(sink: LogSink | undefined, service = "db"): Log {
  if (sink === undefined) return createLogger(service);
  if (typeof sink !== "function") return sink;
  const line = (_fields: LogFields, msg: string) => sink(msg);
  return { info: line, warn: line, error: line };
}

/** An error's message for a log line or a reason (never its stack). */
export function reason(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

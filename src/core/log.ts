import { hostname } from "node:os";
import pino, { type Logger } from "pino";
import { logSink } from "./log-sink.ts";
import { scrubSecrets } from "./secrets.ts";

export { type LogSink, setLogSink } from "./log-sink.ts";
export type { Logger };

/** Keys whose values never reach a line, wherever they sit in the logged object. */
const SECRET_KEYS = [
  "password",
  "privateKey",
  "private_key",
  "token",
  "secret",
  "authorization",
  "databaseUrl",
  "connectionString",
];

/** The sink as pino sees it: each line scrubbed as a whole (a URL with its password, a key in a message). */
const scrubbingStream = {
  write(line: string): void {
    logSink().write(scrubSecrets(line));
  },
};

/**
 * The structured log of a service or trader: one JSON line per event on stderr (stdout keeps the
 * human lines a person or `hl up` reads), with `time` (ISO 8601), `level` (name), `service`,
 * `pid`, `host`, the event's fields and `msg`. LOG_LEVEL (default info) sets the threshold.
 * Secrets are removed twice: by key (SECRET_KEYS anywhere in a logged object), then from the whole
 * line (URL passwords, private keys, bearer tokens).
 */
export function createLogger(service: string, env: NodeJS.ProcessEnv = process.env): Logger {
  return pino(
    {
      level: env.LOG_LEVEL ?? "info",
      base: { service, pid: process.pid, host: hostname() },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: {
        paths: SECRET_KEYS.flatMap((k) => [k, `*.${k}`]),
        censor: "[redacted]",
      },
      serializers: { err: pino.stdSerializers.err },
    },
    scrubbingStream,
  );
}

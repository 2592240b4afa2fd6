import { UserError } from "../core/errors.ts";
import { asLog, type LogSink } from "./log.ts";

/** Node's and Postgres's codes for "the server is not there (yet)": worth another try. */
const UNREACHABLE = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "57P03", // cannot_connect_now: the server is starting up or shutting down
  "53300", // too_many_connections
  "57P01", // admin_shutdown: the server is stopping and ended this session
  "57P02", // crash_shutdown
]);

/** Whether `err` says Postgres cannot be reached (now): a retry may succeed, nothing else is wrong. */
export function unreachable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === "string" && (UNREACHABLE.has(code) || code.startsWith("08"))) return true;
  // pg reports a connection closed during start-up without a code.
  // pg-pool gives up waiting for a connection it cannot open (a network cut) with its own message.
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect/i.test(
    err.message,
  );
}

/** `host:port/database` of a Postgres URL: what logs and errors name (never the credentials). */
function describeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || "5432"}${u.pathname}`;
  } catch {
    return "the DATABASE_URL server";
  }
}

const FIRST_DELAY_MS = 250;
const MAX_DELAY_MS = 5_000;
const DEFAULT_TIMEOUT_S = 60;

/** DATABASE_CONNECT_TIMEOUT_S: how long a starting service keeps trying to reach Postgres (60 s). */
function connectTimeoutMs(env: NodeJS.ProcessEnv): number {
  const raw = env.DATABASE_CONNECT_TIMEOUT_S?.trim();
  if (!raw) return DEFAULT_TIMEOUT_S * 1000;
  const s = Number(raw);
  if (!Number.isFinite(s) || s < 0)
    throw new UserError("DATABASE_CONNECT_TIMEOUT_S must be a number of seconds ≥ 0");
  return s * 1000;
}

/**
 * Run `attempt` until it succeeds, as long as it fails because Postgres cannot be reached: with a
 * growing pause (0.25 s doubling to 5 s) for up to DATABASE_CONNECT_TIMEOUT_S, one log line per
 * failed attempt. Any other failure (a broken migration, a refused password) is thrown at once.
 */
export async function whenReachable<T>(
  url: string,
  attempt: () => Promise<T>,
  opts: { env?: NodeJS.ProcessEnv; log?: LogSink },
): Promise<T> {
  const log = asLog(opts.log);
  const timeoutMs = connectTimeoutMs(opts.env ?? process.env);
  const where = describeUrl(url);
  const started = Date.now();
  let delay = FIRST_DELAY_MS;
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (err) {
      if (!unreachable(err)) throw err;
      const reason = err instanceof Error ? err.message : String(err);
      const left = timeoutMs - (Date.now() - started);
      if (left <= 0) {
        throw new UserError(
          `Postgres at ${where} not reachable after ${n} attempts in ${timeoutMs / 1000} s: ${reason}`,
        );
      }
      const wait = Math.min(delay, left);
      log.warn(
        { event: "store_waiting", where, attempt: n, next_s: wait / 1000, reason },
        `postgres ${where} not reachable (${reason}); attempt ${n}, next in ${wait / 1000} s`,
      );
      await new Promise((r) => setTimeout(r, wait));
      delay = Math.min(delay * 2, MAX_DELAY_MS);
    }
  }
}

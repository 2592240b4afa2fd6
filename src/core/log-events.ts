import type { Logger } from "./log.ts";

/**
 * The events every service logs under the same names and fields (docs/logging.md), so an operator
 * can filter one kind across services: `event` names it, `msg` says it in words.
 */

/** The service listens: where, and what it was started with (never a secret). */
export function logStarted(
  log: Logger,
  fields: { url: string } & Record<string, unknown>,
  msg: string,
): void {
  log.info({ event: "start", ...fields }, msg);
}

/** A store (SQLite or Postgres) failed an operation: the request or job is answered or retried. */
export function logStoreError(log: Logger, operation: string, err: unknown): void {
  log.error({ event: "store_error", operation, err: asError(err) }, `store ${operation} failed`);
}

/** An elected role changed: this replica became the writer of `lease`, or stopped being it. */
export function logElection(
  log: Logger,
  fields: {
    lease: string;
    role: "writer" | "follower";
    term: string | number | null;
    holder?: string | null;
  },
): void {
  log.info(
    { event: "election", ...fields },
    fields.role === "writer"
      ? `${fields.holder ?? "this replica"} is the writer of ${fields.lease} (term ${fields.term ?? "?"})`
      : `${fields.holder ?? "this replica"} follows on ${fields.lease}`,
  );
}

/** The lease of `lease` was lost, renewed late, or could not be reached: one line per change, not per try. */
export function logLeaseChange(
  log: Logger,
  fields: {
    lease: string;
    state: "renewed" | "lost" | "unreachable" | "released";
    term: string | number | null;
  },
  err?: unknown,
): void {
  const level = fields.state === "lost" || fields.state === "unreachable" ? "warn" : "info";
  log[level](
    { event: "lease", ...fields, ...(err === undefined ? {} : { err: asError(err) }) },
    `lease ${fields.lease}: ${fields.state}`,
  );
}

/** A LISTEN connection dropped and is being re-opened (`attempt` from 1), or is back (`state: up`). */
export function logListenReconnect(
  log: Logger,
  fields: { state: "down" | "up"; attempt: number; retry_ms?: number },
  err?: unknown,
): void {
  log[fields.state === "down" ? "warn" : "info"](
    { event: "listen", ...fields, ...(err === undefined ? {} : { err: asError(err) }) },
    fields.state === "down" ? `LISTEN connection lost (attempt ${fields.attempt})` : "LISTEN connection back",
  );
}

/** One refresh cycle done: how many agents, how much exchange weight, how far behind its schedule. */
export function logRefreshCycle(
  log: Logger,
  fields: {
    network: string;
    agents: number;
    refreshed: number;
    failed: number;
    weight_used: number;
    behind_ms: number;
    duration_ms: number;
  },
): void {
  log[fields.behind_ms > 0 ? "warn" : "info"](
    { event: "refresh", ...fields },
    `${fields.network}: refreshed ${fields.refreshed}/${fields.agents} agents in ${fields.duration_ms} ms`,
  );
}

/** A request failed on the server's side (a 5xx): the client got `{error}`, the cause goes here. */
export function logRequestFailed(
  log: Logger,
  method: string,
  path: string,
  status: number,
  err: unknown,
): void {
  log.error({ event: "request_failed", method, path, status, err: asError(err) }, `${method} ${path} failed`);
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

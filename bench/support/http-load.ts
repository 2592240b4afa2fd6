import { Worker } from "node:worker_threads";

/**
 * A lean keep-alive HTTP/1.1 load generator (wrk-like): `connections` sockets, each sending the next
 * GET as soon as the previous answer is complete, for `durationMs` (a server that closes after each
 * answer, HTTP/1.0 style, gets a new connection per request). It runs in a worker thread with
 * hand-rolled response framing, so the client costs far less than node:http and the figure is the
 * server's, not the client's.
 */
export interface LoadOptions {
  /** Default 127.0.0.1. */
  host?: string;
  port: number;
  path: string;
  connections: number;
  durationMs: number;
  /** Extra request header lines, e.g. ["Accept-Encoding: gzip"]. */
  headers?: string[];
  /** The status every answer should have (default 200); others count as errors. */
  status?: number;
}

export interface LoadResult {
  requests: number;
  /** Answers whose status was not the one expected, and connections refused or reset. */
  errors: number;
  elapsedMs: number;
  latenciesMs: Float64Array;
}

export function runLoad(opts: LoadOptions): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL("./http-load-worker.mjs", import.meta.url), { workerData: opts });
    worker.once("message", (r: LoadResult) => resolve(r));
    worker.once("error", reject);
  });
}

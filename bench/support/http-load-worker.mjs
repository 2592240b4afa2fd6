// The loop of bench/support/http-load.ts, in a worker thread: see LoadOptions and LoadResult there.
import { connect } from "node:net";
import { parentPort, workerData } from "node:worker_threads";

/**
 * How the response whose head is `head` ends: `length` (bytes after the head), or "at-close" for
 * an answer without a length (HTTP/1.0 style), which ends when the server closes. `ok`: its status
 * is the one expected.
 * @param {string} head
 * @param {number} status
 */
function framing(head, status) {
  const code = Number(head.slice(9, 12));
  const ok = /^HTTP\/1\.[01] /.test(head) && code === status;
  const http10 = head.startsWith("HTTP/1.0");
  const connection = /\r\nconnection:\s*([^\r]*)/i.exec(head)?.[1]?.toLowerCase() ?? "";
  const keepAlive = http10 ? connection.includes("keep-alive") : !connection.includes("close");
  const m = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  if (code === 204 || code === 304) return { length: 0, ok, keepAlive };
  if (!m) return { length: "at-close", ok, keepAlive: false };
  return { length: Number(m[1]), ok, keepAlive };
}

/** @param {{host?: string, port:number, path:string, connections:number, durationMs:number, headers?:string[], status?: number}} o */
function loadLoop(o) {
  const host = o.host ?? "127.0.0.1";
  const status = o.status ?? 200;
  const request = Buffer.from(
    `GET ${o.path} HTTP/1.1\r\nHost: ${host}:${o.port}\r\n${(o.headers ?? []).map((h) => `${h}\r\n`).join("")}\r\n`,
  );
  /** @type {number[]} */
  const latencies = [];
  let errors = 0;
  const started = performance.now();
  const end = started + o.durationMs;
  /**
   * One client: a keep-alive connection sending the next GET as soon as the previous answer is
   * complete; when the server closes after an answer, the next GET goes on a new connection (its
   * latency then includes the connect, as a real client's would).
   */
  const client = () =>
    new Promise((resolve) => {
      const open = () => {
        if (performance.now() >= end) {
          resolve();
          return;
        }
        let sentAt = performance.now();
        // The answer so far: its head once complete, then only the count of body bytes (large bodies
        // are not copied).
        let pending = Buffer.alloc(0);
        /** @type {ReturnType<typeof framing> | undefined} */
        let answer;
        let bodyBytes = 0;
        let closing = false;
        const socket = connect(o.port, host);
        socket.setNoDelay(true);
        const answered = (ok) => {
          latencies.push(performance.now() - sentAt);
          if (!ok) errors++;
        };
        const send = () => {
          if (performance.now() >= end) {
            closing = true;
            socket.destroy();
            resolve();
            return;
          }
          pending = Buffer.alloc(0);
          answer = undefined;
          bodyBytes = 0;
          sentAt = performance.now();
          socket.write(request);
        };
        socket.on("connect", () => socket.write(request));
        // A refused or reset connection (a server whose accept queue overflowed) is a failed
        // request: counted, and the client connects again.
        socket.on("error", () => {
          if (closing) return;
          closing = true;
          errors++;
          socket.destroy();
          setTimeout(open, 10);
        });
        socket.on("data", (chunk) => {
          if (answer === undefined) {
            pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
            const headEnd = pending.indexOf("\r\n\r\n");
            if (headEnd < 0) return;
            answer = framing(pending.subarray(0, headEnd).toString("latin1"), status);
            bodyBytes = pending.length - headEnd - 4;
          } else bodyBytes += chunk.length;
          if (answer.length === "at-close" || bodyBytes < answer.length) return;
          answered(answer.ok);
          if (answer.keepAlive) send();
          else {
            closing = true;
            socket.destroy();
            open();
          }
        });
        socket.on("end", () => {
          if (closing) return;
          closing = true;
          if (answer?.length === "at-close") answered(answer.ok);
          socket.destroy();
          open();
        });
      };
      open();
    });
  return Promise.all(Array.from({ length: o.connections }, client)).then(() => ({
    requests: latencies.length,
    errors,
    elapsedMs: performance.now() - started,
    latenciesMs: Float64Array.from(latencies),
  }));
}

parentPort?.postMessage(await loadLoop(workerData));

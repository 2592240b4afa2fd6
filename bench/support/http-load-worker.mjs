// The loop of bench/support/http-load.ts, in a worker thread: see LoadOptions and LoadResult there.
import { connect } from "node:net";
import { parentPort, workerData } from "node:worker_threads";

/**
 * Where the response in `buf` ends: its byte length once complete, -1 while more is to come, or
 * "at-close" for an answer without a length (HTTP/1.0 style), which ends when the server closes.
 * @param {Buffer} buf
 */
function framing(buf) {
  const headEnd = buf.indexOf("\r\n\r\n");
  if (headEnd < 0) return { done: -1 };
  const head = buf.subarray(0, headEnd).toString("latin1");
  const ok = /^HTTP\/1\.[01] 200 /.test(head);
  const http10 = head.startsWith("HTTP/1.0");
  const connection = /\r\nconnection:\s*([^\r]*)/i.exec(head)?.[1]?.toLowerCase() ?? "";
  const keepAlive = http10 ? connection.includes("keep-alive") : !connection.includes("close");
  const m = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  if (!m) return { done: "at-close", ok, keepAlive: false };
  const total = headEnd + 4 + Number(m[1]);
  return { done: buf.length >= total ? total : -1, ok, keepAlive };
}

/** @param {{host?: string, port:number, path:string, connections:number, durationMs:number, headers?:string[]}} o */
function loadLoop(o) {
  const host = o.host ?? "127.0.0.1";
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
    new Promise((resolve, reject) => {
      const open = () => {
        if (performance.now() >= end) {
          resolve();
          return;
        }
        let sentAt = performance.now();
        let buf = Buffer.alloc(0);
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
          buf = Buffer.alloc(0);
          sentAt = performance.now();
          socket.write(request);
        };
        socket.on("connect", () => socket.write(request));
        socket.on("error", (err) => (closing ? undefined : reject(err)));
        socket.on("data", (chunk) => {
          buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk]);
          const f = framing(buf);
          if (typeof f.done !== "number" || f.done < 0) return;
          answered(f.ok);
          if (f.keepAlive) send();
          else {
            closing = true;
            socket.destroy();
            open();
          }
        });
        socket.on("end", () => {
          if (closing) return;
          closing = true;
          const f = framing(buf);
          if (f.done === "at-close") answered(f.ok);
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

// The loop of bench/support/http-load.ts, in a worker thread: see LoadOptions and LoadResult there.
import { connect } from "node:net";
import { parentPort, workerData } from "node:worker_threads";

/** @param {{port:number, path:string, connections:number, durationMs:number, headers?:string[]}} o */
function loadLoop(o) {
  const request = Buffer.from(
    `GET ${o.path} HTTP/1.1\r\nHost: 127.0.0.1:${o.port}\r\n${(o.headers ?? []).map((h) => `${h}\r\n`).join("")}\r\n`,
  );
  /** @type {number[]} */
  const latencies = [];
  let errors = 0;
  const started = performance.now();
  const end = started + o.durationMs;
  const one = () =>
    new Promise((resolve, reject) => {
      const socket = connect(o.port, "127.0.0.1");
      socket.setNoDelay(true);
      let buf = Buffer.alloc(0);
      let sentAt = 0;
      const send = () => {
        if (performance.now() >= end) {
          socket.destroy();
          resolve();
          return;
        }
        buf = Buffer.alloc(0);
        sentAt = performance.now();
        socket.write(request);
      };
      socket.on("connect", send);
      socket.on("error", reject);
      socket.on("data", (chunk) => {
        buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk]);
        const headEnd = buf.indexOf("\r\n\r\n");
        if (headEnd < 0) return;
        const head = buf.subarray(0, headEnd).toString("latin1");
        const m = /\r\ncontent-length:\s*(\d+)/i.exec(head);
        const length = m ? Number(m[1]) : 0;
        if (buf.length < headEnd + 4 + length) return;
        latencies.push(performance.now() - sentAt);
        if (!head.startsWith("HTTP/1.1 200")) errors++;
        send();
      });
    });
  return Promise.all(Array.from({ length: o.connections }, one)).then(() => ({
    requests: latencies.length,
    errors,
    elapsedMs: performance.now() - started,
    latenciesMs: Float64Array.from(latencies),
  }));
}

parentPort?.postMessage(await loadLoop(workerData));

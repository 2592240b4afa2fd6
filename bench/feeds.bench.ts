import { type ChildProcess, fork } from "node:child_process";
import { connect, type Socket } from "node:net";
import { fileURLToPath } from "node:url";
import { FeedEngine } from "../src/services/feeds/engine.ts";
import { engineTickFeed } from "../src/services/feeds/live.ts";
import { createFeedOrigin } from "../src/services/feeds/origin.ts";
import { FEEDS } from "../src/services/feeds/profiles.ts";
import type { FundingSource } from "../src/services/feeds/source.ts";
import { SqliteFeedStore } from "../src/services/feeds/store.ts";
import { type BenchReporter, percentile } from "./harness.ts";

/**
 * 10,000 concurrent SSE subscribers on one feed origin, each receiving every tick: delivery latency
 * (p99) and the feed server's RSS. The server runs in a child process (this same file, in server
 * mode) so each side stays within its own file-descriptor limit; the clients are plain node:http
 * sockets in this process.
 */
const SUBSCRIBERS = 10_000;
const TICKS = 5;
const CONNECT_BATCH = 500;
const SERVER_MODE = "FEEDS_BENCH_SERVER";
const TIMESTAMP_KEY = Buffer.from('"timestamp":');

const now = () => performance.timeOrigin + performance.now();

/** Server mode: a BTCSWP origin on a scripted exchange; each "tick" message publishes one tick. */
async function serve(): Promise<void> {
  const src: FundingSource & { clock: number; live: number } = {
    clock: Date.UTC(2026, 0, 1, 0, 1),
    live: 20,
    async now() {
      return this.clock;
    },
    async history() {
      return [];
    },
    async predicted() {
      return `0.00000${this.live}`;
    },
  };
  const store = new SqliteFeedStore(":memory:");
  const engine = new FeedEngine(FEEDS.btcswp, store, src, { inceptionMs: Date.UTC(2026, 0, 1) });
  await engine.start();
  await engine.poll();
  const { app, hub } = createFeedOrigin(engineTickFeed(engine, store));
  const port = await app.listen(0, "127.0.0.1", 4096);
  process.on("message", async (msg: { kind: string }) => {
    if (msg.kind === "tick") {
      src.clock += 1_000;
      src.live++;
      const sentAt = now();
      const tick = await engine.poll();
      process.send?.({
        kind: "ticked",
        timestamp: tick?.timestamp,
        sentAt,
        writtenAt: now(),
        subscribers: hub.size,
      });
    } else if (msg.kind === "rss") {
      process.send?.({ kind: "rss", rss: process.memoryUsage().rss, subscribers: hub.size });
    } else if (msg.kind === "stop") {
      await app.close();
      store.close();
      process.exit(0);
    }
  });
  process.send?.({ kind: "ready", port });
}

if (process.env[SERVER_MODE] === "1") await serve();

interface Reply {
  kind: string;
  port?: number;
  timestamp?: number;
  sentAt?: number;
  writtenAt?: number;
  rss?: number;
  subscribers?: number;
}

function request(child: ChildProcess, msg: { kind: string }, expect: string): Promise<Reply> {
  return new Promise((resolve) => {
    const on = (m: Reply) => {
      if (m.kind !== expect) return;
      child.off("message", on);
      resolve(m);
    };
    child.on("message", on);
    child.send(msg);
  });
}

const STREAM_REQUEST = "GET /api/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n";

/**
 * One subscriber on a raw socket (no HTTP parser: the client side of this bench must stay cheap, as
 * all 10,000 run in this one process): records when each tick timestamp first arrives.
 */
function subscribe(port: number, arrivals: Map<number, number>[]): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const seen = new Map<number, number>();
    arrivals.push(seen);
    const socket = connect({ host: "127.0.0.1", port }, () => socket.write(STREAM_REQUEST));
    socket.on("error", reject);
    {
      let first = true;
      socket.on("data", (chunk: Buffer) => {
        const at = now();
        // Cheap on purpose: 10,000 of these run in this one process per tick.
        let i = chunk.indexOf(TIMESTAMP_KEY);
        while (i >= 0) {
          const start = i + TIMESTAMP_KEY.length;
          seen.set(Number(chunk.toString("latin1", start, start + 13)), at);
          i = chunk.indexOf(TIMESTAMP_KEY, start);
        }
        if (first) {
          first = false;
          resolve(socket);
        }
      });
    }
  });
}

async function waitForAll(arrivals: Map<number, number>[], ts: number, timeoutMs: number): Promise<void> {
  const deadline = now() + timeoutMs;
  while (now() < deadline && arrivals.some((a) => !a.has(ts)))
    await new Promise((res) => setTimeout(res, 20));
}

export default async function (r: BenchReporter): Promise<void> {
  const runner = fileURLToPath(new URL("../bin/run-ts.mjs", import.meta.url));
  const child = fork(runner, [fileURLToPath(import.meta.url)], {
    env: { ...process.env, [SERVER_MODE]: "1" },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  try {
    const ready = await new Promise<Reply>((resolve) => child.once("message", (m: Reply) => resolve(m)));
    const port = ready.port!;
    const arrivals: Map<number, number>[] = [];
    const streams: Socket[] = [];
    const t0 = now();
    for (let i = 0; i < SUBSCRIBERS; i += CONNECT_BATCH) {
      const batch = Array.from({ length: Math.min(CONNECT_BATCH, SUBSCRIBERS - i) }, () =>
        subscribe(port, arrivals),
      );
      streams.push(...(await Promise.all(batch)));
    }
    const connectS = (now() - t0) / 1000;

    // One warm-up tick (JIT of the write path on both sides), not measured.
    const warm = await request(child, { kind: "tick" }, "ticked");
    await waitForAll(arrivals, warm.timestamp!, 3_000);

    const latencies: number[] = [];
    const writes: number[] = [];
    let delivered = 0;
    for (let k = 0; k < TICKS; k++) {
      const ticked = await request(child, { kind: "tick" }, "ticked");
      const ts = ticked.timestamp!;
      writes.push(ticked.writtenAt! - ticked.sentAt!);
      const deadline = now() + 3_000;
      while (now() < deadline && arrivals.some((a) => !a.has(ts)))
        await new Promise((res) => setTimeout(res, 20));
      for (const a of arrivals) {
        const at = a.get(ts);
        if (at === undefined) continue;
        delivered++;
        latencies.push(at - ticked.sentAt!);
      }
    }
    const rss = await request(child, { kind: "rss" }, "rss");
    for (const s of streams) s.destroy();

    r.figure({
      name: `feeds SSE: subscribers connected (in ${connectS.toFixed(1)} s)`,
      value: rss.subscribers!,
      unit: "clients",
      target: { op: ">=", value: SUBSCRIBERS },
    });
    r.figure({
      name: `feeds SSE: ticks delivered to ${SUBSCRIBERS} subscribers`,
      value: (100 * delivered) / (SUBSCRIBERS * TICKS),
      unit: "%",
      target: { op: ">=", value: 100 },
    });
    r.figure({
      name: "feeds SSE: tick delivery p99",
      value: percentile(latencies, 99),
      unit: "ms",
      target: { op: "<", value: 1_000 },
    });
    r.figure({ name: "feeds SSE: tick delivery p50", value: percentile(latencies, 50), unit: "ms" });
    r.figure({
      name: "feeds SSE: server time to write one tick to all (max)",
      value: Math.max(...writes),
      unit: "ms",
    });
    r.figure({
      name: `feeds server RSS with ${SUBSCRIBERS} subscribers`,
      value: rss.rss! / 1_048_576,
      unit: "MB",
      target: { op: "<", value: 300 },
    });
  } finally {
    child.send({ kind: "stop" });
    await new Promise((res) => {
      child.once("exit", res);
      setTimeout(() => {
        child.kill();
        res(undefined);
      }, 3_000).unref();
    });
  }
}

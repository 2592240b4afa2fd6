import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createConnection, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BrokerBudget } from "../../src/exchange/broker-budget.ts";
import { CRITICAL_RESERVE_SHARE, RateBudget, sharedRateBudget } from "../../src/exchange/budget.ts";
import { startWeightBroker, type WeightBroker } from "../../src/exchange/weight-broker.ts";

const API = "http://127.0.0.1:1";
let dir: string;
const open: { close(): Promise<void> }[] = [];

afterEach(async () => {
  for (const o of open.splice(0)) await o.close();
  rmSync(dir, { recursive: true, force: true });
});

async function broker(opts: Partial<Parameters<typeof startWeightBroker>[0]> = {}): Promise<WeightBroker> {
  dir = mkdtempSync(join(tmpdir(), "hl-broker-"));
  const b = await startWeightBroker({ socketPath: join(dir, "broker.sock"), ...opts });
  open.push(b);
  return b;
}

/** A process's budget through the broker, with a fallback of its own that must not be what paces it. */
function client(socketPath: string, events: Record<string, unknown>[] = []) {
  return new BrokerBudget({
    socketPath,
    api: API,
    fallback: new RateBudget({ weightPerMinute: 1e6, reserveShare: CRITICAL_RESERVE_SHARE }),
    log: (e) => events.push(e),
  });
}

/** How many of `takes` are granted within `ms`. */
async function grantedWithin(takes: Promise<void>[], ms: number): Promise<number> {
  let granted = 0;
  for (const t of takes) void t.then(() => granted++);
  await new Promise((r) => setTimeout(r, ms));
  return granted;
}

/** A raw connection to the broker and the lines it answers. */
async function raw(socketPath: string): Promise<{ socket: Socket; lines: unknown[] }> {
  const socket = createConnection(socketPath);
  socket.setEncoding("utf8");
  const lines: unknown[] = [];
  let buffer = "";
  socket.on("data", (chunk: string) => {
    buffer += chunk;
    for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
      lines.push(JSON.parse(buffer.slice(0, nl)));
      buffer = buffer.slice(nl + 1);
    }
  });
  await new Promise((r) => socket.once("connect", r));
  return { socket, lines };
}

const until = async (ok: () => boolean, ms = 1000) => {
  const end = Date.now() + ms;
  while (!ok() && Date.now() < end) await new Promise((r) => setTimeout(r, 5));
};

describe("weight broker", () => {
  it("keeps two processes' scans in one budget over a real socket: never more than the capacity in any 61 s window", async () => {
    // The broker's budget on a clock that moves only as it waits: five minutes pass in milliseconds.
    let now = 0;
    const spent: { at: number; weight: number }[] = [];
    class Recorded extends RateBudget {
      override take(weight: number, opts: { background?: boolean; signal?: AbortSignal } = {}) {
        return super.take(weight, opts).then(() => {
          spent.push({ at: now, weight });
        });
      }
    }
    const b = await broker({
      weightPerMinute: 300,
      budget: (w) =>
        new Recorded({
          weightPerMinute: w,
          reserveShare: CRITICAL_RESERVE_SHARE,
          now: () => now,
          sleep: async (ms) => {
            now += ms;
            await new Promise((r) => setImmediate(r));
          },
        }),
    });
    const a = client(b.socketPath);
    const c = client(b.socketPath);
    // Each alone would be paced by its own budget of a million a minute; together 1,200 weight.
    const reads = (budget: BrokerBudget) =>
      Array.from({ length: 30 }, () => budget.take(20, { background: true }));
    await Promise.all([...reads(a), ...reads(c)]);
    expect(spent.reduce((s, x) => s + x.weight, 0)).toBe(1200);
    for (const { at } of spent) {
      const inWindow = spent
        .filter((x) => x.at > at - 61_000 && x.at <= at)
        .reduce((s, x) => s + x.weight, 0);
      expect(inWindow).toBeLessThanOrEqual(300);
    }
    // 1,200 at most 210 a minute for scans (the reserve for closes, a margin for ticks): over five minutes.
    expect(now).toBeGreaterThanOrEqual(5 * 60_000);
    expect(a.brokered && c.brokered).toBe(true);
  });

  it("lets one process's scan use what the other leaves, and no more: 40 of a 60 budget, not 40 each", async () => {
    const b = await broker({ weightPerMinute: 60 });
    const a = client(b.socketPath);
    const c = client(b.socketPath);
    const takes = [
      ...Array.from({ length: 10 }, () => a.take(4, { background: true })),
      ...Array.from({ length: 10 }, () => c.take(4, { background: true })),
    ];
    // Scans stop short of the reserve (12) and a margin for ticks (6): 10 reads of 4 fit, 10 wait.
    expect(await grantedWithin(takes, 300)).toBe(10);
  });

  it("leaves a scan only what the other processes' ticks leave, and never makes a tick wait on it", async () => {
    const b = await broker({ weightPerMinute: 60 });
    const scan = client(b.socketPath);
    const ticks = client(b.socketPath);
    await ticks.take(20); // told to the broker
    await until(() => false, 50);
    const scanReads = Array.from({ length: 20 }, () => scan.take(4, { background: true }));
    // 60 less the reserve (12) and the margin (6) is 42; the ticks spent 20: 5 reads of 4.
    expect(await grantedWithin(scanReads, 200)).toBe(5);
    const start = Date.now();
    await ticks.take(4);
    await ticks.take(2);
    expect(Date.now() - start).toBeLessThan(100);
  });

  it("tells every process of a 429 another met: all back off", async () => {
    const b = await broker({ weightPerMinute: 60 });
    const a = client(b.socketPath);
    const c = client(b.socketPath);
    await c.take(1); // connected
    a.limited(2000);
    await until(() => c.limitedForMs() > 0);
    expect(c.limitedForMs()).toBeGreaterThan(1000);
  });

  it("falls back to the process's own budget within a second when no broker answers, and says so once", async () => {
    dir = mkdtempSync(join(tmpdir(), "hl-broker-"));
    const events: Record<string, unknown>[] = [];
    const gone = client(join(dir, "no-broker.sock"), events);
    const start = Date.now();
    await gone.take(4, { background: true });
    await gone.take(4, { background: true });
    await gone.take(4);
    gone.charge(1);
    expect(Date.now() - start).toBeLessThan(1000);
    expect(gone.brokered).toBe(false);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ event: "weight_broker_unavailable" });
  });

  it("hands a read waiting on a broker that goes away to the process's own budget", async () => {
    const b = await broker({ weightPerMinute: 10 });
    const events: Record<string, unknown>[] = [];
    const a = client(b.socketPath, events);
    await a.take(8, { background: true });
    const waiting = a.take(8, { background: true }); // the broker's minute is spent: this waits
    expect(await grantedWithin([waiting], 100)).toBe(0);
    await b.close();
    const start = Date.now();
    await waiting;
    expect(Date.now() - start).toBeLessThan(1000);
    expect(events).toHaveLength(1);
  });

  it("answers a malformed line with an error and goes on serving", async () => {
    const b = await broker({ weightPerMinute: 60 });
    const { socket, lines } = await raw(b.socketPath);
    socket.write("hello\n");
    socket.write(`${JSON.stringify({ type: "take", id: 3, api: API, weight: -1 })}\n`);
    socket.write(`${JSON.stringify({ type: "spend", api: API })}\n`);
    socket.write(`${JSON.stringify({ type: "take", id: 4, api: API, weight: 2 })}\n`);
    await until(() => lines.length >= 4);
    expect(lines).toEqual([
      { error: "not JSON" },
      { id: 3, error: "weight must be a non-negative number" },
      { error: "type must be take, charge, limited, answered, failed or cancel" },
      { id: 4 },
    ]);
    socket.destroy();
  });

  it("bounds the takes one connection may have waiting, and survives a client gone mid-wait without spending for it", async () => {
    // 20 a minute: reads may spend 16 (the reserve is 4); a read of 10 fits once.
    const b = await broker({ weightPerMinute: 20, maxWaitingPerConnection: 2 });
    const { socket, lines } = await raw(b.socketPath);
    for (const id of [1, 2, 3])
      socket.write(`${JSON.stringify({ type: "take", id, api: API, weight: 10 })}\n`);
    await until(() => lines.length >= 2);
    expect(lines).toEqual(
      expect.arrayContaining([{ id: 1 }, { id: 3, error: "too many takes waiting on this connection" }]),
    );
    expect(lines).toHaveLength(2);
    socket.destroy(); // take 2 was still waiting
    // Had the gone client's turn been spent (20 in the window), this read would wait a minute.
    const a = client(b.socketPath);
    expect(await grantedWithin([a.take(6)], 300)).toBe(1);
  });

  it("grants a stopping run's read from the IP's room when its process's share is spent, without charging the share", async () => {
    const b = await broker({ weightPerMinute: 1000 });
    const share = new RateBudget({ weightPerMinute: 100, reserveShare: CRITICAL_RESERVE_SHARE });
    const a = new BrokerBudget({ socketPath: b.socketPath, api: API, fallback: share, log: () => undefined });
    share.charge(100); // spent for the next minute
    const tick = a.take(20);
    const shutdown = a.take(20, { shutdown: true });
    expect(await grantedWithin([shutdown], 150)).toBe(1);
    expect(await grantedWithin([tick], 50)).toBe(0); // a tick's read keeps to the share
    expect(share.available()).toBe(0);
    // The broker spent it: 1000 less the reserve (200) and the 20 granted leave 780 for reads.
    expect(await grantedWithin([a.take(780, { shutdown: true })], 150)).toBe(1);
    expect(await grantedWithin([a.take(1, { shutdown: true })], 100)).toBe(0);
  });

  it("grants a stopping run's read from its share when that frees first, and the broker spends nothing for it", async () => {
    const b = await broker({ weightPerMinute: 100 });
    const ip = b.budget(API)!;
    ip.charge(100); // the IP spent for the next minute (another process's burst)
    // The share's clock moves only when the test says.
    let now = 0;
    const sleepers: (() => void)[] = [];
    const share = new RateBudget({
      weightPerMinute: 100,
      reserveShare: CRITICAL_RESERVE_SHARE,
      now: () => now,
      sleep: () => new Promise<void>((r) => sleepers.push(r)),
    });
    share.charge(100);
    const a = new BrokerBudget({ socketPath: b.socketPath, api: API, fallback: share, log: () => undefined });
    const read = a.take(20, { shutdown: true });
    expect(await grantedWithin([read], 100)).toBe(0); // neither has room
    now = 61_000; // the share's minute has passed; the IP's has not
    for (const wake of sleepers.splice(0)) wake();
    expect(await grantedWithin([read], 150)).toBe(1);
    expect(share.available()).toBe(80);
    await until(() => false, 50); // the cancel and the charge reach the broker
    // Told (20); the take given up at the broker spent nothing more.
    expect(ip.available()).toBe(-20);
  });

  it("gives a stopping run's read up when its caller's signal aborts, at the broker and on its share", async () => {
    const b = await broker({ weightPerMinute: 100 });
    b.budget(API)!.charge(100);
    const share = new RateBudget({ weightPerMinute: 100 });
    share.charge(100);
    const a = new BrokerBudget({ socketPath: b.socketPath, api: API, fallback: share, log: () => undefined });
    const stop = new AbortController();
    const read = a.take(10, { shutdown: true, signal: stop.signal }).then(
      () => "granted",
      () => "given up",
    );
    await until(() => false, 50);
    stop.abort();
    expect(await read).toBe("given up");
  });

  it("drops a take its process gave up (a run stopping): the read's promise rejects at once and the grant is never spent", async () => {
    // The broker's clock moves only when the test says: a minute passes between two lines.
    let now = 0;
    const sleepers: (() => void)[] = [];
    const b = await broker({
      weightPerMinute: 20,
      budget: (w) =>
        new RateBudget({
          weightPerMinute: w,
          reserveShare: CRITICAL_RESERVE_SHARE,
          now: () => now,
          sleep: () => new Promise<void>((r) => sleepers.push(r)),
        }),
    });
    const a = client(b.socketPath);
    // Scans may spend 14 of the 20 (a reserve of 4, a margin of 2): a second read of 10 must wait.
    await a.take(10, { background: true });
    const stop = new AbortController();
    const waiting = a.take(10, { background: true, signal: stop.signal });
    const outcome = waiting.then(
      () => "granted",
      () => "given up",
    );
    await until(() => sleepers.length > 0);
    stop.abort();
    const first = await Promise.race([
      outcome,
      new Promise((r) => setTimeout(() => r("still waiting"), 300)),
    ]);
    expect(first).toBe("given up");
    await new Promise((r) => setTimeout(r, 50)); // the cancel line reaches the broker
    // A minute on, the first read has aged out; had the given-up take been granted then, 10 would be
    // spent again and this read of 14 would wait another minute.
    now = 61_000;
    for (const wake of sleepers.splice(0)) wake();
    expect(await grantedWithin([a.take(14, { background: true })], 300)).toBe(1);
  });

  it("keeps its socket to its user (mode 0600) and replaces a stale socket file", async () => {
    dir = mkdtempSync(join(tmpdir(), "hl-broker-"));
    const socketPath = join(dir, "broker.sock");
    writeFileSync(socketPath, "left by a broker that is gone");
    const b = await startWeightBroker({ socketPath, weightPerMinute: 60 });
    open.push(b);
    expect(statSync(socketPath).mode & 0o777).toBe(0o600);
    expect(statSync(socketPath).isSocket()).toBe(true);
  });

  it("is what a process's shared budget asks when HL_WEIGHT_BROKER names a socket (not when it says off)", async () => {
    const b = await broker({ weightPerMinute: 60 });
    const env = { HL_WEIGHT_BROKER: b.socketPath, HL_RATE_WEIGHT_PER_MIN: "300" };
    const brokered = sharedRateBudget("http://127.0.0.1:9/brokered", env);
    expect(brokered).toBeInstanceOf(BrokerBudget);
    await brokered.take(1, { background: true });
    expect((brokered as BrokerBudget).brokered).toBe(true);
    const own = sharedRateBudget("http://127.0.0.1:9/not-brokered", { HL_WEIGHT_BROKER: "off" });
    expect(own).toBeInstanceOf(RateBudget);
  });
});

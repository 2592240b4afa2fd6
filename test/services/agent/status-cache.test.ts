import {
  appendFileSync,
  closeSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  renameSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import type { StatusMappers } from "../../../src/services/agent/status-reader.ts";
import { startTestAgent, tempDataDir, testMappers, waitFor } from "./helpers.ts";

type Started = Awaited<ReturnType<typeof startTestAgent>>;
let running: Started[] = [];
afterEach(async () => {
  await Promise.all(running.map((s) => s.svc.close()));
  running = [];
});

/** The test mappers, counting how often the state is mapped (each mapping means a rebuilt body). */
function countingMappers() {
  const calls = { wolf: 0, wolfText: 0 };
  const mappers: StatusMappers = {
    ...testMappers,
    wolf: (s) => {
      calls.wolf++;
      return testMappers.wolf(s);
    },
    wolfText: (s) => {
      calls.wolfText++;
      return testMappers.wolfText(s);
    },
  };
  return { calls, mappers };
}

/** What the trading child does each tick: replace wolf/state.json atomically. */
function writeState(dataDir: string, tick: number): void {
  const dir = join(dataDir, "wolf");
  mkdirSync(dir, { recursive: true });
  const state = { tick_count: tick, slots: [], total_trades: tick * 2, config: { max_slots: 3 } };
  writeFileSync(join(dir, "state.json.tmp"), JSON.stringify(state));
  renameSync(join(dir, "state.json.tmp"), join(dir, "state.json"));
}

const getText = async (url: string) => {
  const res = await fetch(url);
  return { res, text: await res.text() };
};

describe("agent status path", () => {
  it("serves a body built once per state change: many requests of one state map it once", async () => {
    const { calls, mappers } = countingMappers();
    const dataDir = tempDataDir();
    writeState(dataDir, 7);
    // a child that stays alive but writes nothing itself: the test plays its ticks
    const s = await startTestAgent(
      { DATA_DIR: dataDir },
      { mappers },
      { TICK_MS: "600000", DATA_DIR: tempDataDir() },
    );
    running.push(s);
    await waitFor(() => (s.svc.supervisor!.alive ? true : undefined));
    const first = await getText(`${s.base}/api/status`);
    expect(JSON.parse(first.text)).toMatchObject({ status: "running", tick_count: 7, total_trades: 14 });
    expect(first.res.headers.get("content-type")).toMatch(/^application\/json/);
    const before = { ...calls };
    for (let i = 0; i < 100; i++) {
      expect((await getText(`${s.base}/api/status`)).text).toBe(first.text);
      expect((await getText(`${s.base}/status`)).text).toBe("WOLF test\nTick 7\n");
    }
    expect(calls.wolf - before.wolf).toBe(0);
    expect(calls.wolfText - before.wolfText).toBeLessThanOrEqual(1);
  });

  it("a new state is served at once after the child writes it (no stale body)", async () => {
    const dataDir = tempDataDir();
    writeState(dataDir, 1);
    const s = await startTestAgent({ DATA_DIR: dataDir }, {}, { TICK_MS: "600000", DATA_DIR: tempDataDir() });
    running.push(s);
    await waitFor(() => (s.svc.supervisor!.alive ? true : undefined));
    expect(JSON.parse((await getText(`${s.base}/api/status`)).text).tick_count).toBe(1);
    for (let tick = 2; tick <= 6; tick++) {
      writeState(dataDir, tick); // same size, often the same mtime millisecond as the last one
      const t0 = performance.now();
      await waitFor(async () => {
        const body = JSON.parse((await getText(`${s.base}/api/status`)).text) as { tick_count: number };
        return body.tick_count === tick ? true : undefined;
      }, 3000);
      expect(performance.now() - t0).toBeLessThan(1500);
      expect((await getText(`${s.base}/status`)).text).toBe(`WOLF test\nTick ${tick}\n`);
    }
  });

  it("turns to stopped the moment the child is gone, and back when the state is read again", async () => {
    const s = await startTestAgent({}, {}, { EXIT_AFTER: "3", EXIT_CODE: "0" });
    running.push(s);
    await waitFor(async () =>
      JSON.parse((await getText(`${s.base}/api/status`)).text).status === "running" ? true : undefined,
    );
    await waitFor(() => (s.svc.supervisor!.status === "exited" ? true : undefined));
    expect(JSON.parse((await getText(`${s.base}/api/status`)).text)).toEqual({ status: "stopped" });
    expect((await getText(`${s.base}/status`)).text).toMatch(/^Agent stopped\.\nWOLF test\nTick 3\n$/);
  });
});

describe("agent status path, strategy mode", () => {
  it("follows the engine's SQLite state (WAL) as it changes", async () => {
    const dataDir = tempDataDir();
    mkdirSync(join(dataDir, "cli"), { recursive: true });
    const db = new Database(join(dataDir, "cli", "state.db"));
    db.pragma("journal_mode = WAL");
    db.exec("CREATE TABLE kv (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
    const put = db.prepare("INSERT OR REPLACE INTO kv (key, value) VALUES ('tick_count', ?)");
    put.run("1");
    const s = await startTestAgent(
      { DATA_DIR: dataDir, RUN_MODE: "strategy" },
      {},
      { TICK_MS: "600000", DATA_DIR: tempDataDir() },
    );
    running.push(s);
    try {
      await waitFor(() => (s.svc.supervisor!.alive ? true : undefined));
      for (let tick = 1; tick <= 4; tick++) {
        put.run(String(tick));
        await waitFor(async () => {
          const body = JSON.parse((await getText(`${s.base}/api/status`)).text) as { tick_count: number };
          return body.tick_count === tick ? true : undefined;
        }, 2000);
      }
    } finally {
      db.close();
    }
  });
});

describe("/api/trades", () => {
  const line = (i: number) =>
    `${JSON.stringify({ tick: i, oid: 1000 + i, instrument: "ETH-PERP", side: "buy", price: "3000.5", quantity: "0.1" })}\n`;

  it("reads only the tail of a huge trades.jsonl: the last N lines, oldest first", async () => {
    const dataDir = tempDataDir();
    const file = join(dataDir, "wolf", "trades.jsonl");
    mkdirSync(join(dataDir, "wolf"), { recursive: true });
    // 3 GB of history (a sparse file: no disk used) that nobody may read whole on a request
    const fd = openSync(file, "w");
    ftruncateSync(fd, 3 * 1024 ** 3);
    closeSync(fd);
    appendFileSync(file, "\n");
    for (let i = 1; i <= 120; i++) appendFileSync(file, line(i));
    appendFileSync(file, '{"tick":121,"oid":11'); // cut by a crash mid-append
    const s = await startTestAgent({ DATA_DIR: dataDir }, {}, { TICK_MS: "600000", DATA_DIR: tempDataDir() });
    running.push(s);
    const res = await fetch(`${s.base}/api/trades?limit=50`);
    expect(res.status).toBe(200);
    const { trades } = (await res.json()) as { trades: { tick: number }[] };
    expect(trades.map((t) => t.tick)).toEqual(Array.from({ length: 50 }, (_, i) => 71 + i));
    const all = (await (await fetch(`${s.base}/api/trades?limit=1000`)).json()) as { trades: unknown[] };
    expect(all.trades).toHaveLength(120);
  });

  it("serves a short file whole, an absent one as [], and refuses a bad limit", async () => {
    const dataDir = tempDataDir();
    const s = await startTestAgent({ DATA_DIR: dataDir }, {}, { TICK_MS: "600000", DATA_DIR: tempDataDir() });
    running.push(s);
    expect(await (await fetch(`${s.base}/api/trades`)).json()).toEqual({ trades: [] });
    mkdirSync(join(dataDir, "wolf"), { recursive: true });
    writeFileSync(join(dataDir, "wolf", "trades.jsonl"), line(1) + line(2) + line(3));
    const { trades } = (await (await fetch(`${s.base}/api/trades?limit=5`)).json()) as {
      trades: { tick: number }[];
    };
    expect(trades.map((t) => t.tick)).toEqual([1, 2, 3]);
    const bad = await fetch(`${s.base}/api/trades?limit=0`);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toMatch(/limit/);
  });
});

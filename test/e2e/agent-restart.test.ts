import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { HlClient, RateBudget } from "../../src/exchange/index.ts";
import { loadGuard } from "../../src/guard/store.ts";
import { type SimWorld, startSimWorld } from "../../src/sim/world.ts";
import { dslDir, statePath, type WolfState } from "../../src/wolf/state.ts";
import { cleanEnv, freeUpPorts, getJson, HL, until } from "./up-helpers.ts";

/**
 * `hl agent serve` in WOLF mode on the sim, its trading child killed with kill -9: the supervisor
 * starts a successor at once, and the successor's first state on disk is a ready one — reconciled
 * with the exchange (a position opened while the child ran unaware is adopted into a slot) and
 * guarded (the slot's stop file exists). How fast is a bench figure (bench/agent-status-live).
 */

const dir = mkdtempSync(join(tmpdir(), "agent-restart-"));
const dataDir = join(dir, "data");
let sim: SimWorld;
let agent: ChildProcess | undefined;

interface Health {
  pid: number | null;
  alive: boolean;
  restart_in_s: number | null;
}

beforeAll(async () => {
  sim = await startSimWorld({ seed: 5, historyDays: 1 });
});

afterAll(async () => {
  if (agent && agent.exitCode === null) {
    const exited = new Promise((r) => agent!.once("exit", r));
    agent.kill("SIGTERM");
    await exited;
  }
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The state file's content from the first write after `sinceMs`, read the moment it lands. */
async function firstWriteAfter(sinceMs: number, timeoutMs: number): Promise<WolfState> {
  while (Date.now() - sinceMs < timeoutMs) {
    try {
      if (statSync(statePath(dataDir)).mtimeMs > sinceMs)
        return JSON.parse(readFileSync(statePath(dataDir), "utf8")) as WolfState;
    } catch {
      // not there yet, or mid-rename
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`no state written within ${timeoutMs} ms`);
}

it("a trading child killed with -9 is replaced at once; the successor's first state is reconciled and guarded", async () => {
  const { agent: port } = await freeUpPorts();
  const config = join(dir, "wolf-config.json");
  // No entries of its own: the only position is the one opened beside it.
  writeFileSync(
    config,
    JSON.stringify({
      movers_immediate_auto_entry: false,
      movers_min_volume_24h: 1e15,
      scanner_min_volume_24h: 1e15,
    }),
  );
  agent = spawn(process.execPath, [HL, "agent", "serve"], {
    env: {
      ...cleanEnv(),
      PORT: String(port),
      HOST: "127.0.0.1",
      RUN_MODE: "wolf",
      HL_NETWORK: "paper",
      HL_API_URL: sim.url,
      HL_PRIVATE_KEY: "",
      DATA_DIR: dataDir,
      HL_AGENT_HOME: join(dir, "home"),
      // A long tick: the running child does not reconcile again before it is killed.
      WOLF_TICK: "300",
      WOLF_CONFIG: config,
    },
    stdio: "ignore",
  });
  const base = `http://127.0.0.1:${port}`;
  const startedAt = Date.now();
  await firstWriteAfter(startedAt - 1, 30_000);
  const first = await until(
    "a running child",
    async () => {
      const h = await getJson<Health>(`${base}/health`);
      return h?.alive && h.pid ? h : undefined;
    },
    Date.now() + 30_000,
  );

  // The child's paper account opens a position the running child does not know about.
  const client = await HlClient.create({
    network: "paper",
    apiUrl: sim.url,
    env: { DATA_DIR: dataDir },
    budget: new RateBudget({ weightPerMinute: 1e9 }),
  });
  const opened = await client.marketOrder({ instrument: "ETH-PERP", side: "buy", size: "0.5" });
  await client.close();
  expect(opened.status).toBe("filled");

  const killedAt = Date.now();
  process.kill(first.pid!, "SIGKILL");
  const written = await firstWriteAfter(killedAt, 30_000);
  const now = await getJson<Health>(`${base}/health`);
  expect(now?.pid).not.toBe(first.pid);
  expect(now?.alive).toBe(true);
  // An isolated crash is restarted at once, not after a back-off.
  expect(now?.restart_in_s).toBeNull();

  const slot = written.slots.find((s) => s.coin === "ETH");
  expect(slot, JSON.stringify(written.slots)).toMatchObject({
    status: "active",
    side: "long",
    entry_size: "0.5",
    entry_source: "reconciled",
  });
  expect(loadGuard(dslDir(dataDir), slot!.dsl_position_id).kind).toBe("ok");
}, 60_000);

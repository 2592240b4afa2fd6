import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import {
  type AddressInfo,
  connect,
  createServer as createNetServer,
  type Server as NetServer,
  type Socket,
} from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type {
  AllMidsResponse,
  ClearinghouseStateResponse,
  FrontendOpenOrdersResponse,
} from "@nktkas/hyperliquid";
import { afterAll, beforeAll, expect, it, onTestFailed } from "vitest";
import { HlClient, RateBudget } from "../../src/exchange/index.ts";
import { readMemoryEvents } from "../../src/review/memory.ts";
import { type SimWorld, startSimWorld } from "../../src/sim/world.ts";
import { loadWolfState, statePath, wolfDir } from "../../src/wolf/state.ts";
import { cleanEnv, freeUpPorts, getJson, HL, isAlive, sleep, until } from "./up-helpers.ts";

/**
 * Protection that outlives the trading child, on the sim with real `hl` processes:
 * (a) the child is paused (SIGSTOP through /api/pause) while the sim moves a price through the stop:
 *     the guard path closes the position during the pause;
 * (d) the child is paused and the agent service itself is killed with -9: every open slot's exchange
 *     stop keeps resting while nothing of ours runs; the service started again on the same data dir
 *     wakes the orphaned paused child (which stops itself), its new child takes the lock and the slots
 *     with their stops (one each), and acts on the next stop;
 * (c) the network between the agent and the sim is cut (a loopback proxy drops every connection)
 *     while a price goes through the stop: the stream is reported degraded, and the stop order
 *     resting on the exchange (the backstop) closes the position during the cut itself;
 * (b) the child is killed with -9 until the supervisor gives up: protect-only mode takes over, the
 *     operator's webhook hears it, the open position keeps its exchange stop, and the next stop is
 *     still acted on.
 * The pause lasts PROTECTION_E2E_PAUSE_S seconds (default 2; the full run is 120), the cut
 * PROTECTION_E2E_CUT_S (default 2; the is 60).
 */

const PAUSE_S = Number(process.env.PROTECTION_E2E_PAUSE_S ?? 2);
const CUT_S = Number(process.env.PROTECTION_E2E_CUT_S ?? 2);

/** A loopback TCP proxy to the sim that can cut every connection (and refuse new ones) at will. */
class CuttableLink {
  private cut = false;
  private readonly sockets = new Set<Socket>();
  private readonly server: NetServer;
  constructor(target: number) {
    this.server = createNetServer((inbound) => {
      if (this.cut) return inbound.destroy();
      const outbound = connect(target, "127.0.0.1");
      for (const s of [inbound, outbound]) {
        this.sockets.add(s);
        s.on("close", () => this.sockets.delete(s));
        s.on("error", () => undefined);
      }
      inbound.pipe(outbound).pipe(inbound);
      inbound.on("close", () => outbound.destroy());
      outbound.on("close", () => inbound.destroy());
    });
  }
  async listen(): Promise<string> {
    await new Promise<void>((r) => this.server.listen(0, "127.0.0.1", r));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  setCut(cut: boolean): void {
    this.cut = cut;
    if (cut) for (const s of this.sockets) s.destroy();
  }
  close(): void {
    this.setCut(true);
    this.server.close();
  }
}
let link: CuttableLink;
const dir = mkdtempSync(join(tmpdir(), "protection-outlives-"));
const dataDir = join(dir, "data");
let sim: SimWorld;
let agent: ChildProcess | undefined;
/** What the agent services and their children wrote, for a failure's message. */
let output = "";
/** A paused trader orphaned on purpose: killed at the end if a failure left it stopped. */
let orphan: number | undefined;
let hook: Server;
const alerts: string[] = [];

interface Health {
  pid: number | null;
  alive: boolean;
  paused: boolean;
  supervisor: string;
  last_crash: { reason: string; crashes: number } | null;
  guardian: { active: boolean; reason: string | null; pid: number | null };
}

beforeAll(async () => {
  // The exchange's per-IP limit (1200 a minute) applies: the seven trader and guard starts packed into
  // ~25 s here (~100 weight each, test/wolf/start-weight.test.ts) fit within it beside their ticks.
  sim = await startSimWorld({ seed: 7, historyDays: 1 });
  hook = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      alerts.push(body);
      res.end("ok");
    });
  });
  await new Promise<void>((r) => hook.listen(0, "127.0.0.1", r));
  link = new CuttableLink(Number(new URL(sim.url).port));
});

afterAll(async () => {
  if (agent && agent.exitCode === null) {
    const exited = new Promise((r) => agent!.once("exit", r));
    agent.kill("SIGTERM");
    await exited;
  }
  if (orphan !== undefined && isAlive(orphan)) process.kill(orphan, "SIGKILL");
  hook?.close();
  link?.close();
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** One-letter process state from /proc ("T": stopped), or undefined when it is gone. */
function processState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
  } catch {
    return undefined;
  }
}

/** The data dir's trading lock: who holds it, since when. */
function tradingLock(): { pid: number; since: string } | undefined {
  try {
    return JSON.parse(readFileSync(join(wolfDir(dataDir), "trading.lock"), "utf8"));
  } catch {
    return undefined;
  }
}

async function setPrice(coin: string, px: string): Promise<void> {
  const res = await fetch(`${sim.url}/sim/price`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ coin, px }),
  });
  expect(res.ok).toBe(true);
}

it(
  "pause and a given-up supervisor leave the positions guarded",
  async () => {
    onTestFailed(() => console.error(`the agent services' last output:\n${output.slice(-8000)}`));
    const { agent: port } = await freeUpPorts();
    const config = join(dir, "wolf-config.json");
    // No entries of its own: it guards the positions opened beside it.
    writeFileSync(
      config,
      JSON.stringify({
        max_slots: 4,
        movers_immediate_auto_entry: false,
        movers_min_volume_24h: 1e15,
        scanner_min_volume_24h: 1e15,
      }),
    );
    const client = await HlClient.create({
      network: "paper",
      apiUrl: sim.url,
      env: { DATA_DIR: dataDir },
      budget: new RateBudget({ weightPerMinute: 1e9 }),
    });
    await client.clearinghouseState(); // the sim opens (and funds) the paper account on its first read
    for (const [instrument, size] of [
      ["ETH-PERP", "0.5"],
      ["SOL-PERP", "0.5"],
      ["BTC-PERP", "0.01"],
      ["AVAX-PERP", "5"],
    ] as const)
      expect((await client.marketOrder({ instrument, side: "buy", size })).status).toBe("filled");
    // The test reads the sim's venue in this process: its reads spend none of the per-IP weight
    // (1200 a minute) that every agent process shares on loopback, as they would share one IP live.
    const user = client.address!;
    const size = async (coin: string) => {
      const st = sim.venue.info({ type: "clearinghouseState", user }) as ClearinghouseStateResponse;
      const p = st.assetPositions.find((a) => a.position.coin === coin);
      return p ? Number(p.position.szi) : 0;
    };
    const mid = async (coin: string) =>
      Number((sim.venue.info({ type: "allMids" }) as AllMidsResponse)[coin]);
    /** Reduce-only trigger orders resting on the sim, counted per coin. */
    const stopsByCoin = async () => {
      const counts: Record<string, number> = {};
      for (const o of sim.venue.info({ type: "frontendOpenOrders", user }) as FrontendOpenOrdersResponse)
        if (o.isTrigger && o.reduceOnly) counts[o.coin] = (counts[o.coin] ?? 0) + 1;
      return counts;
    };

    const agentEnv = {
      ...cleanEnv(),
      PORT: String(port),
      HOST: "127.0.0.1",
      RUN_MODE: "wolf",
      HL_NETWORK: "paper",
      // the agent reaches the sim through a link the test can cut
      HL_API_URL: await link.listen(),
      HL_PRIVATE_KEY: "",
      DATA_DIR: dataDir,
      HL_AGENT_HOME: join(dir, "home"),
      WOLF_TICK: "300",
      WOLF_CONFIG: config,
      HL_ALERT_WEBHOOK: `http://127.0.0.1:${(hook.address() as AddressInfo).port}/`,
      HL_SUPERVISOR_MAX_RESTARTS: "2",
      HL_SUPERVISOR_BACKOFF_MS: "100",
    };
    const startAgent = () => {
      const child = spawn(process.execPath, [HL, "agent", "serve"], {
        env: agentEnv,
        stdio: ["ignore", "pipe", "pipe"],
      });
      for (const stream of [child.stdout, child.stderr]) stream?.on("data", (b: Buffer) => (output += b));
      return child;
    };
    agent = startAgent();
    const base = `http://127.0.0.1:${port}`;
    const health = () => getJson<Health>(`${base}/health`);
    const guarded = (coin: string) => () => {
      const r = loadWolfState(dataDir);
      return r.kind === "ok" && r.state.slots.some((s) => s.coin === coin && s.status === "active")
        ? true
        : undefined;
    };
    await until(
      "the positions adopted",
      async () => guarded("ETH")() && guarded("SOL")() && guarded("AVAX")(),
      Date.now() + 30_000,
    );

    // (a) paused while the price goes through the stop
    const pausedAt = Date.now();
    const paused = await fetch(`${base}/api/pause`, { method: "POST" });
    expect(paused.status).toBe(200);
    const h = await health();
    expect(h).toMatchObject({ paused: true, guardian: { active: true, reason: "paused" } });
    await setPrice("ETH", ((await mid("ETH")) * 0.9).toFixed(1));
    await until(
      "ETH closed while paused",
      async () => ((await size("ETH")) === 0 ? true : undefined),
      Date.now() + 20_000,
    );
    // the guard job beside the paused trader runs without its lock: the same process all along
    await sleep(Math.max(0, PAUSE_S * 1000 - (Date.now() - pausedAt)));
    expect(await health()).toMatchObject({ paused: true, guardian: { active: true, pid: h?.guardian.pid } });
    expect((await fetch(`${base}/api/resume`, { method: "POST" })).status).toBe(200);
    expect(await health()).toMatchObject({ paused: false, guardian: { active: false } });

    // (d) the service is killed with -9 while its trader is paused
    await until(
      "the resumed trader's state without ETH",
      async () => {
        const r = loadWolfState(dataDir);
        return r.kind === "ok" && !r.state.slots.some((s) => s.coin === "ETH" && s.status !== "empty");
      },
      Date.now() + 10_000,
      100,
    );
    const avaxStop = () => {
      const r = loadWolfState(dataDir);
      const avax = r.kind === "ok" ? r.state.slots.find((s) => s.coin === "AVAX") : undefined;
      return avax?.status === "active" && avax.backstop?.status === "resting" ? avax.backstop : undefined;
    };
    const { cloid: avaxCloid } = await until(
      "AVAX's backstop resting",
      async () => avaxStop(),
      Date.now() + 10_000,
    );
    const trader = (await health())?.pid;
    expect(trader).toBeTypeOf("number");
    orphan = trader!;
    const guardJobsSoFar = output.split("beside the paused trader").length;
    expect((await fetch(`${base}/api/pause`, { method: "POST" })).status).toBe(200);
    const guardPid = await until(
      "the guard job guarding beside the paused trader",
      async () => {
        const pid = (await health())?.guardian.pid;
        return pid && output.split("beside the paused trader").length > guardJobsSoFar ? pid : undefined;
      },
      Date.now() + 15_000,
      100,
    );
    const killedService = agent;
    const serviceGone = new Promise((r) => killedService.once("exit", r));
    killedService.kill("SIGKILL");
    await serviceGone;
    await until(
      "the guard job stopped with its service",
      async () => !isAlive(guardPid),
      Date.now() + 15_000,
      100,
    );
    // Nothing of ours runs but a stopped trader, which still holds the lock: the stops rest on the exchange.
    expect(processState(orphan)).toBe("T");
    expect(tradingLock()?.pid).toBe(orphan);
    expect(await stopsByCoin()).toEqual({ AVAX: 1, BTC: 1, SOL: 1 });

    const sessionsStarted = () =>
      readMemoryEvents(dataDir).filter((e) => e.event_type === "session_start").length;
    const sessionsBefore = sessionsStarted();
    agent = startAgent();
    await until("the orphaned paused trader gone", async () => !isAlive(orphan!), Date.now() + 20_000, 100);
    const lock = await until(
      "a new trader holding the lock",
      async () => {
        const [now, held] = [await health(), tradingLock()];
        return now?.pid && now.pid !== orphan && held?.pid === now.pid ? held : undefined;
      },
      Date.now() + 15_000,
      100,
    );
    expect(output).toContain(`(pid ${orphan}) was left paused by a supervisor`);
    // The slots as the new trader reconciled them once its start (slots, then stops) is done: each
    // open one with its stop resting, AVAX's the same order as before (adopted, not placed again).
    await until(
      "the new trader's start",
      async () => sessionsStarted() > sessionsBefore,
      Date.now() + 15_000,
      100,
    );
    const reconciled = loadWolfState(dataDir);
    const open = reconciled.kind === "ok" ? reconciled.state.slots.filter((s) => s.status !== "empty") : [];
    expect(open.map((s) => [s.coin, s.status, s.backstop?.status]).sort()).toEqual([
      ["AVAX", "active", "resting"],
      ["BTC", "active", "resting"],
      ["SOL", "active", "resting"],
    ]);
    expect(avaxStop()?.cloid).toBe(avaxCloid);
    expect(await stopsByCoin()).toEqual({ AVAX: 1, BTC: 1, SOL: 1 });
    expect(await health()).toMatchObject({
      pid: lock.pid,
      alive: true,
      paused: false,
      supervisor: "running",
      last_crash: null,
      guardian: { active: false },
    });
    await setPrice("AVAX", ((await mid("AVAX")) * 0.9).toFixed(3));
    await until(
      "AVAX closed under the new trader",
      async () => ((await size("AVAX")) === 0 ? true : undefined),
      Date.now() + 15_000,
    );
    await until(
      "the AVAX slot booked closed, its stop gone",
      async () => {
        const r = loadWolfState(dataDir);
        const open = r.kind === "ok" && r.state.slots.some((s) => s.coin === "AVAX" && s.status !== "empty");
        return !open && !(await stopsByCoin()).AVAX;
      },
      Date.now() + 15_000,
    );
    expect(tradingLock()?.pid).toBe(lock.pid);

    // (c) the network is cut while BTC goes through its stop
    const streamOf = () => {
      const r = loadWolfState(dataDir);
      return r.kind === "ok" ? r.state.price_stream : undefined;
    };
    await until(
      "the resumed child streams",
      async () => (streamOf() === "ok" ? true : undefined),
      Date.now() + 20_000,
    );
    const cutAt = Date.now();
    link.setCut(true);
    await setPrice("BTC", ((await mid("BTC")) * 0.9).toFixed(0));
    await until(
      "degraded during the cut",
      async () => (streamOf() === "degraded" ? true : undefined),
      cutAt + CUT_S * 1000,
    );
    // Nothing the agent sends reaches the exchange: the stop resting there (the backstop) closes BTC.
    await until(
      "BTC closed by its exchange stop during the cut",
      async () => ((await size("BTC")) === 0 ? true : undefined),
      Date.now() + 10_000,
    );
    await sleep(Math.max(0, CUT_S * 1000 - (Date.now() - cutAt)));
    link.setCut(false);
    await until(
      "the BTC slot booked closed once the link is back",
      async () => {
        const r = loadWolfState(dataDir);
        return r.kind === "ok" && !r.state.slots.some((s) => s.coin === "BTC" && s.status !== "empty")
          ? true
          : undefined;
      },
      Date.now() + 15_000,
    );

    // (b) kill -9 until the supervisor gives up
    const killed = new Set<number>();
    let gaveUpAt = 0;
    await until(
      "protect-only mode",
      async () => {
        const now = await health();
        if (now?.supervisor === "protect_only") return now;
        gaveUpAt = Date.now();
        if (now?.alive && now.pid && !killed.has(now.pid)) {
          killed.add(now.pid);
          process.kill(now.pid, "SIGKILL");
        }
        return undefined;
      },
      Date.now() + 30_000,
    );
    expect(killed.size).toBe(3);
    await until(
      "protect-only alert",
      async () => (alerts.some((a) => a.includes("protect-only")) ? true : undefined),
      Date.now() + 10_000,
    );
    await until(
      "the guard job runs",
      async () => ((await health())?.guardian.active ? true : undefined),
      Date.now() + 10_000,
    );
    // the guard job's first state write says it holds the slots
    await until(
      "the guard job's state",
      async () => (statSync(statePath(dataDir)).mtimeMs > gaveUpAt ? true : undefined),
      Date.now() + 15_000,
    );
    // the guard job keeps SOL's exchange stop resting
    await until(
      "SOL's backstop resting under the guard job",
      async () => {
        const r = loadWolfState(dataDir);
        const sol = r.kind === "ok" ? r.state.slots.find((s) => s.coin === "SOL") : undefined;
        return sol?.backstop?.status === "resting" ? true : undefined;
      },
      Date.now() + 10_000,
    );
    await setPrice("SOL", ((await mid("SOL")) * 0.9).toFixed(2));
    await until(
      "SOL closed in protect-only mode",
      async () => ((await size("SOL")) === 0 ? true : undefined),
      Date.now() + 20_000,
    );
    await client.close();
  },
  90_000 + (PAUSE_S + CUT_S) * 1000,
);

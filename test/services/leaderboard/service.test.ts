import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HlClient, RateBudget } from "../../../src/exchange/index.ts";
import { listen } from "../../../src/http/service.ts";
import { hlAccountSource } from "../../../src/services/leaderboard/account-source.ts";
import type { BoardEntry } from "../../../src/services/leaderboard/board.ts";
import { leaderboardConfig } from "../../../src/services/leaderboard/config.ts";
import {
  createLeaderboardService,
  type LeaderboardService,
} from "../../../src/services/leaderboard/service.ts";
import { type SimWorld, startSimWorld } from "../../../src/sim/world.ts";
import { usePostgres } from "../../support/postgres.ts";
import { type FaultyProxy, simAdmin, startFaultyProxy } from "./fixtures.ts";
import { type BoardControl, startLeaderboardPair } from "./replicas.ts";

interface Board {
  agents: BoardEntry[];
  total_agents: number;
  last_updated: number;
}

const INVALID = "Invalid Ethereum address (expected 0x + 40 hex chars)";

let sim: SimWorld;
let proxy: FaultyProxy;
let dir: string;
const running: { close: () => Promise<void> }[] = [];
const postgres = usePostgres();

/** The same acceptance tests, against one process on SQLite and against two replicas on Postgres. */
interface Deployment {
  replicas: number;
  env(): Promise<Record<string, string>>;
}
const deployments: [string, Deployment][] = [
  ["one process on SQLite", { replicas: 1, env: async () => ({}) }],
  [
    "two replicas on Postgres behind a round-robin balancer",
    { replicas: 2, env: async () => ({ DATABASE_URL: await postgres.current.freshDatabase() }) },
  ],
];
let deployment: Deployment = deployments[0]![1];

function wallet() {
  const key = generatePrivateKey();
  return { key, address: privateKeyToAccount(key).address };
}

async function startBoard(env: Record<string, string> = {}) {
  const config = leaderboardConfig({
    LEADERBOARD_DB: join(dir, `lb-${running.length}.db`),
    HL_API_URL_TESTNET: proxy.url,
    HL_API_URL_MAINNET: sim.url,
    HL_API_URL_PAPER: sim.url,
    LEADERBOARD_AGENT_TIMEOUT_S: "4",
    LEADERBOARD_REGISTER_PER_MIN: "1000",
    LEADERBOARD_REGISTER_BURST: "1000",
    LEADERBOARD_STAGGER_MS: "0",
    ...(await deployment.env()),
    ...env,
  });
  const accounts = await hlAccountSource(config.apiUrls, config.agentTimeoutMs, {
    env: {},
    budget: new RateBudget({ weightPerMinute: 100_000 }),
  });
  const services: LeaderboardService[] = [];
  const urls: string[] = [];
  for (let i = 0; i < deployment.replicas; i++) {
    const one = createLeaderboardService(config, { source: accounts.source });
    services.push(one);
    urls.push(`http://127.0.0.1:${await listen(one.app, 0)}`);
  }
  const pair = services.length > 1 ? await startLeaderboardPair(services, urls) : undefined;
  const svc: BoardControl = pair?.svc ?? services[0]!;
  const base = pair?.base ?? urls[0]!;
  const settled = pair?.settled ?? (async () => undefined);
  running.push({
    close: async () => {
      if (pair) await pair.close();
      else for (const one of services) await one.close();
      await accounts.close();
    },
  });
  return {
    svc,
    base,
    post: async (body: unknown, headers: Record<string, string> = {}) => {
      const res = await fetch(`${base}/api/register`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(body),
      });
      const answer = {
        status: res.status,
        body: (await res.json()) as Record<string, unknown>,
        headers: res.headers,
      };
      await settled();
      return answer;
    },
    board: async (query = ""): Promise<Board & { status: number; error?: string }> => {
      const res = await fetch(`${base}/api/leaderboard${query}`);
      return { status: res.status, ...((await res.json()) as Board & { error?: string }) };
    },
  };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "leaderboard-"));
  // Needs the exchange's per-IP weight limit off: refresh cycles every 0.2 s over many agents spend more than
  // one IP's 1200 a minute. The per-address limit stays on.
  sim = await startSimWorld({ ipWeightLimit: false, seed: 11 });
  proxy = await startFaultyProxy(sim.url);
});

afterAll(async () => {
  for (const r of running) await r.close();
  await proxy.close();
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

describe.each(deployments)("%s", (_name, chosen) => {
  beforeAll(() => {
    deployment = chosen;
  });

  describe("leaderboard service against the sim world", () => {
    it("registers, ranks by PnL and separates deposits from trading", async () => {
      const lb = await startBoard();
      const depositor = wallet();
      const withdrawer = wallet();
      const trader = wallet();
      const hip3 = wallet();

      const reg = await lb.post({ address: depositor.address, display_name: "Depositor" });
      expect(reg.status, JSON.stringify(reg.body)).toBe(200);
      expect(reg.body).toEqual({
        registered: true,
        new: true,
        address: depositor.address.toLowerCase(),
        network: "testnet",
        initial_account_value: 10000,
      });
      expect(
        (await lb.post({ address: withdrawer.address, display_name: "Withdrawer", network: "testnet" }))
          .status,
      ).toBe(200);
      expect((await lb.post({ address: trader.address.toLowerCase(), display_name: "Trader" })).status).toBe(
        200,
      );
      expect((await lb.post({ address: hip3.address, display_name: "Hip3" })).status).toBe(200);

      // A new registration is on the board before any refresh.
      const early = await lb.board();
      expect(early.total_agents).toBe(4);
      expect(early.agents.map((a) => a.pnl)).toEqual([0, 0, 0, 0]);

      await simAdmin(sim.url, "deposit", depositor.address, "500.126");
      await simAdmin(sim.url, "withdraw", withdrawer.address, "200.004");
      const client = await HlClient.create({
        network: "testnet",
        apiUrl: sim.url,
        privateKey: trader.key,
        env: {},
      });
      const fill = await client.marketOrder({ instrument: "ETH-PERP", side: "buy", size: "0.2" });
      await client.close();
      expect(fill.status).toBe("filled");
      // An isolated HIP-3 position moves margin from the main dex to the `yex` dex.
      const hip3Client = await HlClient.create({
        network: "testnet",
        apiUrl: sim.url,
        privateKey: hip3.key,
        env: {},
      });
      // A new account margins yex with yex's own USDC: it moves $100 there first (its own money
      // between its own dexes: no deposit, no loss).
      await hip3Client.exchangeClient!.sendAsset({
        destination: hip3.address,
        sourceDex: "",
        destinationDex: "yex",
        token: "USDC:0xeb62eee3685fc4c43992febcd9e75443",
        amount: "100",
      });
      const hip3Fill = await hip3Client.marketOrder({ instrument: "yex:VXX", side: "buy", size: "10" });
      const yex = await hip3Client.clearinghouseState({ user: hip3.address, dex: "yex" });
      await hip3Client.close();
      expect(hip3Fill.status).toBe("filled");
      // About $440 of VXX at yex's default 20x: some $22 of margin now sits on the yex dex.
      expect(Number(yex.marginSummary.accountValue)).toBeGreaterThan(15);

      await lb.svc.refresher.cycle();
      const board = await lb.board("?network=testnet");
      const names = board.agents.map((a) => a.display_name);
      expect(names[0]).toBe("Depositor");
      expect(names[3]).toBe("Withdrawer");
      expect(board.agents.map((a) => a.rank)).toEqual([1, 2, 3, 4]);
      const by = new Map(board.agents.map((a) => [a.display_name, a]));
      const [dep, trd, wdr, h3] = ["Depositor", "Trader", "Withdrawer", "Hip3"].map((n) => by.get(n)!) as [
        BoardEntry,
        BoardEntry,
        BoardEntry,
        BoardEntry,
      ];
      expect(dep).toMatchObject({
        pnl: 500.13,
        account_value: 10500.126,
        net_deposits: 500.13,
        pnl_adjusted: 0,
      });
      expect(wdr).toMatchObject({ pnl: -200, account_value: 9799.996, net_deposits: -200, pnl_adjusted: 0 });
      expect(trd.positions_count).toBe(1);
      expect(trd.net_deposits).toBe(0);
      expect(trd.pnl_adjusted).toBe(trd.pnl);
      expect(trd.pnl).toBeLessThan(0.01 * 3400 * 0.2); // fees and spread, nothing like a deposit
      // Summed over the main dex and HIP-3 dexes: the margin parked on `yex` is not a loss.
      expect(h3.positions_count).toBe(1);
      expect(Math.abs(h3.pnl)).toBeLessThan(10);
      expect(h3.net_deposits).toBe(0);
      for (const a of board.agents) {
        expect(a.address).toBe(a.address.toLowerCase());
        expect(a.network).toBe("testnet");
        expect(a.registered_at).toBeGreaterThan(Date.now() - 60_000);
        expect(a).not.toHaveProperty("stale");
        expect(Math.round(a.pnl * 100) / 100).toBe(a.pnl);
      }
      expect(board.last_updated).toBeGreaterThanOrEqual(early.last_updated);
    });

    it("re-registering changes nothing and returns the stored baseline", async () => {
      const lb = await startBoard();
      const w = wallet();
      await lb.post({ address: w.address, display_name: "first" });
      await simAdmin(sim.url, "deposit", w.address, "1000");
      const again = await lb.post({
        address: w.address.toUpperCase().replace("0X", "0x"),
        display_name: "second",
      });
      expect(again.status).toBe(200);
      expect(again.body).toMatchObject({ registered: true, new: false, initial_account_value: 10000 });
      await lb.svc.refresher.cycle();
      const board = await lb.board();
      expect(board.total_agents).toBe(1);
      expect(board.agents[0]).toMatchObject({
        display_name: "first",
        pnl: 1000,
        pnl_adjusted: 0,
        net_deposits: 1000,
      });
    });

    it("marks only the agent whose query fails as stale, keeping its last values, and never waits on a slow one", async () => {
      const lb = await startBoard();
      const ok = wallet();
      const failing = wallet();
      const slow = wallet();
      for (const [w, name] of [
        [ok, "ok"],
        [failing, "failing"],
        [slow, "slow"],
      ] as const) {
        expect((await lb.post({ address: w.address, display_name: name })).status).toBe(200);
      }
      await simAdmin(sim.url, "deposit", failing.address, "50");
      await lb.svc.refresher.cycle();

      proxy.failing.add(failing.address.toLowerCase());
      proxy.hanging.add(slow.address.toLowerCase());
      await simAdmin(sim.url, "deposit", ok.address, "75");
      await simAdmin(sim.url, "deposit", failing.address, "999");
      try {
        const started = Date.now();
        await lb.svc.refresher.cycle();
        expect(Date.now() - started).toBeLessThan(8_000);
        const board = await lb.board();
        const by = new Map(board.agents.map((a) => [a.display_name, a]));
        expect(by.get("ok")).toMatchObject({ pnl: 75 });
        expect(by.get("ok")).not.toHaveProperty("stale");
        expect(by.get("failing")).toMatchObject({ stale: true, pnl: 50, account_value: 10050 });
        expect(by.get("slow")).toMatchObject({ stale: true, pnl: 0 });
        expect(board.total_agents).toBe(3);
      } finally {
        proxy.failing.clear();
        proxy.hanging.clear();
      }
      await lb.svc.refresher.cycle();
      const healed = await lb.board();
      expect(healed.agents.every((a) => !("stale" in a))).toBe(true);
      expect(healed.agents.find((a) => a.display_name === "failing")).toMatchObject({
        pnl: 1049,
        pnl_adjusted: 0,
      });
    });

    it("refreshes both networks in the background and keeps serving while a cycle waits on a slow agent", async () => {
      const lb = await startBoard({ LEADERBOARD_REFRESH_S: "0.2" });
      const t = wallet();
      const m = wallet();
      const slow = wallet();
      await lb.post({ address: t.address, display_name: "t" });
      await lb.post({ address: slow.address, display_name: "slow" });
      await lb.post({ address: m.address, display_name: "m", network: "mainnet" });
      await simAdmin(sim.url, "deposit", t.address, "10");
      await simAdmin(sim.url, "deposit", m.address, "20");
      proxy.hanging.add(slow.address.toLowerCase());
      try {
        lb.svc.startRefresh();
        let testnet = await lb.board();
        let mainnet = await lb.board("?network=mainnet");
        const until = Date.now() + 10_000;
        while ((testnet.agents[0]?.pnl !== 10 || mainnet.agents[0]?.pnl !== 20) && Date.now() < until) {
          // Reads never wait on the cycle stuck on the slow agent (up to 4 s); the bound leaves room for a
          // busy machine without letting a read that waited pass.
          const t0 = performance.now();
          testnet = await lb.board();
          expect(performance.now() - t0).toBeLessThan(1_000);
          mainnet = await lb.board("?network=mainnet");
          await new Promise((r) => setTimeout(r, 50));
        }
        expect(testnet.agents.find((a) => a.display_name === "t")?.pnl).toBe(10);
        expect(mainnet.agents[0]).toMatchObject({ display_name: "m", pnl: 20, network: "mainnet" });
      } finally {
        proxy.hanging.clear();
      }
    });

    it("answers 502 with the exchange's failure when the baseline cannot be read", async () => {
      const lb = await startBoard();
      const w = wallet();
      proxy.failing.add(w.address.toLowerCase());
      try {
        const r = await lb.post({ address: w.address });
        expect(r.status).toBe(502);
        expect(String(r.body.error)).toMatch(/^Failed to query Hyperliquid: /);
      } finally {
        proxy.failing.clear();
      }
      expect((await lb.board()).total_agents).toBe(0);
    });

    it("validates every registration field with JSON errors", async () => {
      const lb = await startBoard();
      const w = wallet();
      for (const address of [
        undefined,
        "",
        "0x123",
        `${w.address}0`,
        w.address.slice(2),
        `0x${"g".repeat(40)}`,
        42,
      ]) {
        const r = await lb.post({ address });
        expect(r.status, String(address)).toBe(400);
        expect(r.body).toEqual({ error: INVALID });
      }
      const net = await lb.post({ address: w.address, network: "devnet" });
      expect(net.status).toBe(400);
      expect(String(net.body.error)).toMatch(/network/);
      const long = await lb.post({ address: w.address, display_name: "x".repeat(33) });
      expect(long.status).toBe(400);
      expect(String(long.body.error)).toMatch(/32 characters/);
      const notJson = await fetch(`${lb.base}/api/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{nope",
      });
      expect(notJson.status).toBe(400);
      expect((await lb.board()).total_agents).toBe(0);

      const exact = await lb.post({ address: w.address, display_name: "y".repeat(32), network: "mainnet" });
      expect(exact.status).toBe(200);
      expect(exact.body.network).toBe("mainnet");
      const mainnet = await lb.board("?network=mainnet");
      expect(mainnet.agents[0]?.display_name).toBe("y".repeat(32));
      expect((await lb.board()).total_agents).toBe(0);
      const badNet = await lb.board("?network=devnet");
      expect(badNet.status).toBe(400);
      expect(badNet.error).toBe('network must be "testnet", "mainnet" or "paper"');
    });

    it("paper agents are listed as paper, on their own board", async () => {
      const lb = await startBoard();
      const w = wallet();
      const r = await lb.post({ address: w.address, network: "paper", display_name: "sim agent" });
      expect(r.status).toBe(200);
      expect(r.body.network).toBe("paper");
      const paper = await lb.board("?network=paper");
      expect(paper.agents.map((a) => [a.display_name, a.network])).toEqual([["sim agent", "paper"]]);
      expect((await lb.board("?network=testnet")).total_agents).toBe(0);
      expect((await lb.post({ address: w.address, network: "devnet" })).body.error).toBe(
        'network must be "testnet", "mainnet" or "paper"',
      );
    });

    it("rate-limits registrations per client with 429, after validation; trusted proxies are exempt", async () => {
      const lb = await startBoard({
        LEADERBOARD_REGISTER_PER_MIN: "1",
        LEADERBOARD_REGISTER_BURST: "2",
        // The list is the whole trust: loopback is trusted here because it is listed.
        LEADERBOARD_TRUSTED_PROXIES: "127.0.0.1, 10.0.0.7",
      });
      // A script on this machine registers six agents in a row.
      for (let i = 0; i < 6; i++) expect((await lb.post({ address: wallet().address })).status).toBe(200);
      // A client behind a proxy (here: loopback, listed) is limited by its own address...
      const client = { "x-forwarded-for": "203.0.113.5" };
      // ...but a malformed request is a 400 and costs nothing.
      for (let i = 0; i < 3; i++) expect((await lb.post({ address: "bad" }, client)).status).toBe(400);
      expect((await lb.post({ address: wallet().address }, client)).status).toBe(200);
      expect((await lb.post({ address: wallet().address }, client)).status).toBe(200);
      const limited = await lb.post({ address: wallet().address }, client);
      expect(limited.status).toBe(429);
      expect(limited.headers.get("retry-after")).toMatch(/^\d+$/);
      expect(String(limited.body.error)).toMatch(/Too many/);
      expect((await lb.post({ address: "bad" }, client)).status).toBe(400);
      // Through the configured proxy the same client is still the one counted; the proxy itself is exempt.
      const viaProxy = { "x-forwarded-for": "203.0.113.5, 10.0.0.7" };
      expect((await lb.post({ address: wallet().address }, viaProxy)).status).toBe(429);
      for (let i = 0; i < 3; i++)
        expect((await lb.post({ address: wallet().address }, { "x-forwarded-for": "10.0.0.7" })).status).toBe(
          200,
        );
    });

    it("serves health, CORS preflight, metrics, pages and pagination", async () => {
      const lb = await startBoard();
      const health = await fetch(`${lb.base}/health`);
      const h = (await health.json()) as { status: string; uptime_s: number };
      expect(h.status).toBe("ok");
      expect(Number.isInteger(h.uptime_s)).toBe(true);
      const pre = await fetch(`${lb.base}/api/register`, { method: "OPTIONS" });
      expect(pre.status).toBe(204);
      expect(pre.headers.get("access-control-allow-origin")).toBe("*");
      expect((await fetch(`${lb.base}/api/leaderboard`)).headers.get("access-control-allow-origin")).toBe(
        "*",
      );
      const page = await fetch(`${lb.base}/`);
      expect(await page.text()).toContain("/assets/app.js");
      expect((await fetch(`${lb.base}/assets/app.js`)).status).toBe(200);
      for (const name of ["a", "b", "c"]) await lb.post({ address: wallet().address, display_name: name });
      const metrics = await (await fetch(`${lb.base}/metrics`)).text();
      expect(metrics).toMatch(/leaderboard_agents\{[^}]*network="testnet"[^}]*\} 3/);
      const slice = await lb.board("?limit=1&offset=1");
      expect(slice.agents.map((a) => a.rank)).toEqual([2]);
      expect(slice.total_agents).toBe(3);
      expect((await lb.board("?limit=-1")).status).toBe(400);

      // A large board is also served gzip-compressed to clients that accept it.
      for (let i = 0; i < 600; i++) {
        const address = `0x${(i + 1).toString(16).padStart(40, "0")}`;
        lb.svc.store.insert({
          network: "mainnet",
          address,
          displayName: `n${i}`,
          initialAccountValue: "1",
          registeredAt: i,
          ledgerMark: null,
          positionsCount: 0,
        });
      }
      const big = await lb.svc.refresher.rebuild("mainnet");
      await big.compressed;
      const zipped = await fetch(`${lb.base}/api/leaderboard?network=mainnet`, {
        headers: { "accept-encoding": "gzip" },
      });
      expect(zipped.headers.get("content-encoding")).toBe("gzip");
      expect(((await zipped.json()) as Board).total_agents).toBe(600);
    });
  });
});

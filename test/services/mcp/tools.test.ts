import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dec } from "../../../src/core/decimal.ts";
import { type McpHttpServer, serveHttp } from "../../../src/services/mcp/transports.ts";
import { type SimWorld, startSimWorld } from "../../../src/sim/world.ts";
import { call, connectHttp, serverEnv, tempDirs, text } from "./helpers.ts";

/** Every tool's happy path and documented error path, over Streamable HTTP against a sim world. */

const dirs = tempDirs("mcp-tools");
let world: SimWorld;
let env: Record<string, string>;
let server: McpHttpServer;
let client: Client;

async function withServer<T>(extraEnv: Record<string, string>, fn: (c: Client) => Promise<T>): Promise<T> {
  const s = await serveHttp("http", 0, "127.0.0.1", { env: { ...env, ...extraEnv }, dataDir: dirs.dataDir });
  const c = await connectHttp(`http://127.0.0.1:${s.port}`);
  try {
    return await fn(c);
  } finally {
    await c.close();
    await s.close();
  }
}

beforeAll(async () => {
  // Needs the exchange's per-IP weight limit off: every tool's `hl` child starting and reading markets within seconds spend more than
  // one IP's 1200 a minute. The per-address limit stays on.
  world = await startSimWorld({ ipWeightLimit: false, port: 0, seed: 7 });
  env = serverEnv(dirs, world.url);
  server = await serveHttp("http", 0, "127.0.0.1", { env, dataDir: dirs.dataDir });
  client = await connectHttp(`http://127.0.0.1:${server.port}`);
});

afterAll(async () => {
  await client?.close();
  await server?.close();
  await world?.close();
  dirs.cleanup();
});

describe("information tools", () => {
  it("builder_status has the contract's fields", async () => {
    const r = await call(client, "builder_status");
    expect(r.structuredContent).toEqual({
      enabled: expect.any(Boolean),
      builder_address: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/),
      fee_bps: expect.any(Number),
      fee_rate_tenths_bps: expect.any(Number),
      max_fee_rate_str: expect.any(String),
    });
    expect(Number.isInteger((r.structuredContent as { fee_bps: number }).fee_bps)).toBe(true);
  });

  it("setup_check returns ok, issues and passed", async () => {
    const r = await call(client, "setup_check");
    const sc = r.structuredContent as { ok: string[]; issues: string[]; passed: boolean };
    expect(Array.isArray(sc.ok) && Array.isArray(sc.issues)).toBe(true);
    expect(sc.passed).toBe(sc.issues.length === 0);
  });

  it("wallet_list says No keystores found., wallet_auto creates one without leaking the key, then it is listed", async () => {
    const empty = await call(client, "wallet_list");
    expect(empty.isError).toBeFalsy();
    expect(text(empty)).toBe("No keystores found.");

    const created = await call(client, "wallet_auto", { save_env: true });
    expect(created.isError).toBeFalsy();
    const w = created.structuredContent as Record<string, string>;
    expect(Object.keys(w).sort()).toEqual(["address", "env_file", "keystore", "password"]);
    expect(w.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(w.password).toHaveLength(32);
    // Nothing shaped like a private key anywhere in the answer.
    expect(JSON.stringify(created)).not.toMatch(/(0x)?[0-9a-fA-F]{64}/);
    expect(existsSync(w.keystore!)).toBe(true);
    expect(statSync(w.keystore!).mode & 0o777).toBe(0o600);
    expect(readFileSync(w.env_file!, "utf8")).toContain(w.password!);

    const listed = await call(client, "wallet_list");
    const sc = listed.structuredContent as { result: { address: string; path: string }[] };
    expect(sc.result.map((x) => x.address.toLowerCase())).toEqual([w.address!.toLowerCase()]);
  });
});

describe("context tools", () => {
  it("agent_memory and trade_journal are empty before any run; bad arguments are validation errors", async () => {
    expect((await call(client, "agent_memory")).structuredContent).toEqual({ events: [] });
    expect((await call(client, "agent_memory", { query_type: "playbook" })).isError).toBeFalsy();
    expect((await call(client, "trade_journal", { date: "2026-01-01" })).structuredContent).toEqual({
      entries: [],
    });
    for (const [name, args] of [
      ["trade_journal", { date: "yesterday" }],
      ["agent_memory", { event_type: "nonsense" }],
      ["agent_memory", { limit: 0 }],
      ["trade", { instrument: "ETH-PERP", side: "up", size: 1 }],
      ["trade", { instrument: "ETH-PERP", side: "buy", size: -1 }],
      ["howl_run", { since: "last week" }],
      ["wolf_run", { preset: "reckless" }],
    ] as const) {
      const r = await call(client, name, args);
      expect(r.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
      expect(text(r)).toMatch(/Input validation error/);
    }
  });

  it("judge_report is no_reports, obsidian_context unavailable without a vault", async () => {
    expect((await call(client, "judge_report")).structuredContent).toMatchObject({ status: "no_reports" });
    const obs = await call(client, "obsidian_context");
    expect(obs.structuredContent).toMatchObject({ status: "unavailable" });
    expect(text(obs)).toContain(dirs.vault);
  });
});

describe("safety", () => {
  it("refuses mainnet without confirm for every order-placing or live tool, as isError, before spawning anything", async () => {
    for (const [name, args] of [
      ["trade", { instrument: "ETH-PERP", side: "buy", size: 0.01, mainnet: true }],
      ["run_strategy", { strategy: "simple_mm", mainnet: true, max_ticks: 1 }],
      ["wolf_run", { mainnet: true, max_ticks: 1 }],
    ] as const) {
      const r = await call(client, name, args);
      expect(r.isError, name).toBe(true);
      expect(text(r)).toBe("Refusing mainnet: real money. Call again with mainnet: true and confirm: true.");
    }
  });

  it("mainnet with confirm still needs a configured key", async () => {
    await withServer({ HL_AGENT_HOME: join(dirs.root, "empty-home") }, async (c) => {
      const r = await call(c, "trade", {
        instrument: "ETH-PERP",
        side: "buy",
        size: 0.01,
        mainnet: true,
        confirm: true,
      });
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(/mainnet needs a configured key/);
    });
  });

  it("applies the operator policy file (order size, instruments, strategies, max ticks)", async () => {
    const policy = join(dirs.root, "policy.json");
    writeFileSync(
      policy,
      JSON.stringify({
        max_order_size: 1,
        allowed_instruments: ["ETH-PERP"],
        allowed_strategies: ["simple_mm"],
        max_ticks: 5,
      }),
    );
    await withServer({ HL_MCP_POLICY: policy }, async (c) => {
      const cases = [
        ["trade", { instrument: "ETH-PERP", side: "buy", size: 2 }, /order size 2 exceeds max_order_size 1/],
        ["trade", { instrument: "BTC-PERP", side: "buy", size: 0.1 }, /instrument BTC-PERP is not allowed/],
        [
          "run_strategy",
          { strategy: "avellaneda_mm", max_ticks: 1 },
          /strategy avellaneda_mm is not allowed/,
        ],
        ["run_strategy", { strategy: "simple_mm" }, /max_ticks must be set and at most 5/],
        ["wolf_run", { max_ticks: 6 }, /max_ticks must be set and at most 5/],
      ] as const;
      for (const [name, args, msg] of cases) {
        const r = await call(c, name, args);
        expect(r.isError, name).toBe(true);
        expect(text(r)).toMatch(msg);
      }
    });
  });
});

describe("action tools on the paper network", () => {
  it("account, status, wolf_status, scanner_run and howl_run answer concurrently", async () => {
    const [account, status, wolf, scan, howl] = await Promise.all([
      call(client, "account"),
      call(client, "status"),
      call(client, "wolf_status"),
      call(client, "scanner_run", { mock: true }),
      call(client, "howl_run"),
    ]);
    for (const r of [account, status, wolf, scan, howl]) expect(r.isError, text(r)).toBeFalsy();
    expect(account.structuredContent).toMatchObject({
      network: "paper",
      account: { account_value: expect.any(String) },
    });
    expect(status.structuredContent).toEqual({ status: "stopped" });
    // account and status: human-readable text for the reader, the same data typed for programs.
    expect(text(account)).toMatch(/account value/i);
    expect(() => JSON.parse(text(account))).toThrow();
    expect(text(status)).toMatch(/^No strategy engine state in /);
    expect(wolf.structuredContent).toEqual({ status: "stopped" });
    expect(scan.structuredContent).toMatchObject({
      network: "paper",
      scan: { stats: { assets_scanned: expect.any(Number) } },
    });
    // The default scanner finds opportunities on a fresh sim world (its markets have a past).
    const found = (scan.structuredContent as { scan: { opportunities: unknown[] } }).scan.opportunities;
    expect(found.length).toBeGreaterThan(0);
    expect(howl.structuredContent).toMatchObject({ metrics: { total_round_trips: 0 } });
  });

  it("trade fills an IOC order; a refused command is isError with its own message", async () => {
    const r = await call(client, "trade", { instrument: "ETH-PERP", side: "buy", size: 0.05 });
    expect(r.isError, text(r)).toBeFalsy();
    expect(r.structuredContent).toMatchObject({
      network: "paper",
      result: { status: "filled", totalSz: "0.05" },
    });

    const bad = await call(client, "trade", { instrument: "NOPE-PERP", side: "buy", size: 1 });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toMatch(/NOPE/);
    expect(bad.structuredContent).toMatchObject({ exit_code: 1 });
  });

  it("the daily notional budget is charged what traded: a refusal gives it back, a fill costs its notional", async () => {
    const policy = join(dirs.root, "notional-policy.json");
    writeFileSync(policy, JSON.stringify({ daily_notional_usd: 100_000 }));
    const counters = join(dirs.dataDir, "mcp", "policy-counters.json");
    const used = () => (JSON.parse(readFileSync(counters, "utf8")) as { notional_usd: string }).notional_usd;
    await withServer({ HL_MCP_POLICY: policy }, async (c) => {
      // Below the exchange's $10 minimum: refused, with the exchange's own words.
      const refused = await call(c, "trade", { instrument: "ETH-PERP", side: "buy", size: 0.001 });
      expect(refused.isError).toBe(true);
      expect(text(refused)).toMatch(/^order refused by the exchange: Order must have minimum value of \$10/);
      expect(used()).toBe("0");

      const filled = await call(c, "trade", { instrument: "ETH-PERP", side: "buy", size: 0.05 });
      expect(filled.isError, text(filled)).toBeFalsy();
      const fill = (filled.structuredContent as { result: { avgPx: string; totalSz: string } }).result;
      expect(used()).toBe(dec(fill.avgPx).mul(fill.totalSz).toFixed());
    });
  });

  it("run_strategy reports progress each tick and returns the engine's summary; status then shows it", async () => {
    const progress: { progress: number; total?: number; message?: string }[] = [];
    const r = await call(
      client,
      "run_strategy",
      { strategy: "simple_mm", instrument: "ETH-PERP", tick: 0.2, max_ticks: 3, mock: true },
      { onprogress: (p) => progress.push(p) },
    );
    expect(r.isError, text(r)).toBeFalsy();
    expect(progress.map((p) => p.progress)).toEqual([1, 2, 3]);
    expect(progress.every((p) => p.total === 3 && /T\d+ ETH mid=/.test(p.message ?? ""))).toBe(true);
    expect(r.structuredContent).toMatchObject({
      network: "paper",
      summary: { engine: "simple_mm", tick_count: 3 },
    });

    const st = await call(client, "status");
    expect(st.structuredContent).toMatchObject({
      engine: "simple_mm",
      tick_count: 3,
      instrument: "ETH-PERP",
    });
  });
});

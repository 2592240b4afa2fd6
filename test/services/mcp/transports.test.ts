import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TOOLS } from "../../../src/services/mcp/registry.ts";
import { type McpHttpServer, serveHttp } from "../../../src/services/mcp/transports.ts";
import { call, connectHttp, connectSse, connectStdio, serverEnv, tempDirs, text } from "./helpers.ts";

/**
 * The same server over all three transports, driven by the SDK's own client: stdio (the real
 * `hl mcp serve` process), Streamable HTTP at /mcp and legacy SSE (GET /sse + POST /messages).
 */

const EXPECTED = [
  "strategies",
  "builder_status",
  "wallet_list",
  "wallet_auto",
  "setup_check",
  "account",
  "status",
  "trade",
  "run_strategy",
  "scanner_run",
  "wolf_status",
  "wolf_run",
  "howl_run",
  "backtest",
  "agent_memory",
  "trade_journal",
  "judge_report",
  "obsidian_context",
];

const dirs = tempDirs("mcp-transports");
const env = serverEnv(dirs);
let http: McpHttpServer;
let sse: McpHttpServer;
const clients: Record<string, Client> = {};
const stdioErrors: Error[] = [];

beforeAll(async () => {
  http = await serveHttp("http", 0, "127.0.0.1", { env, dataDir: dirs.dataDir });
  sse = await serveHttp("sse", 0, "127.0.0.1", { env, dataDir: dirs.dataDir });
  [clients.stdio, clients.http, clients.sse] = await Promise.all([
    connectStdio(env, stdioErrors),
    connectHttp(`http://127.0.0.1:${http.port}`),
    connectSse(`http://127.0.0.1:${sse.port}`),
  ]);
});

afterAll(async () => {
  await Promise.all(Object.values(clients).map((c) => c.close()));
  await http?.close();
  await sse?.close();
  dirs.cleanup();
});

describe.each(["stdio", "http", "sse"])("MCP over %s", (transport) => {
  it("lists exactly the 18 tools of the registry, each with its annotations", async () => {
    const { tools } = await clients[transport]!.listTools();
    expect(tools.map((t) => t.name)).toEqual(EXPECTED);
    for (const def of TOOLS) {
      const listed = tools.find((t) => t.name === def.name)!;
      expect(listed.annotations).toEqual({ title: def.title, ...def.annotations });
      expect(listed.description).toBe(def.description);
      expect(listed.inputSchema.type).toBe("object");
    }
    const destructive = tools.filter((t) => t.annotations?.destructiveHint).map((t) => t.name);
    expect(destructive).toEqual(["trade", "run_strategy", "wolf_run"]);
  });

  it("answers strategies with structured content and the same JSON as text", async () => {
    const r = await call(clients[transport]!, "strategies");
    expect(r.isError).toBeFalsy();
    const sc = r.structuredContent as { strategies: Record<string, { type: string }>; markets: object };
    expect(Object.keys(sc.strategies)).toHaveLength(14);
    expect(sc.strategies.simple_mm?.type).toBe("mm");
    expect(JSON.parse(text(r))).toEqual(sc);
  });

  it("reports a validation error for bad arguments as isError", async () => {
    const r = await call(clients[transport]!, "agent_memory", { query_type: "everything" });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/Input validation error/);
  });

  it("returns judge_report's no_reports object before any review", async () => {
    const r = await call(clients[transport]!, "judge_report");
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ status: "no_reports" });
  });
});

describe("MCP over stdio: the channel", () => {
  it("carries nothing but JSON-RPC on stdout (no banner, no log line)", async () => {
    await call(clients.stdio!, "strategies");
    expect(stdioErrors).toEqual([]);
  });
});

describe("MCP over HTTP: access", () => {
  it("refuses a browser page from another origin (DNS rebinding, cross-site)", async () => {
    for (const [port, path] of [
      [http.port, "/mcp"],
      [sse.port, "/sse"],
    ] as const) {
      const res = await fetch(`http://127.0.0.1:${port}${path}`, {
        method: path === "/mcp" ? "POST" : "GET",
        headers: { origin: "http://evil.example", "content-type": "application/json" },
        body: path === "/mcp" ? "{}" : undefined,
      });
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({ error: "Origin http://evil.example is not allowed" });
    }
  });

  it("requires the bearer token when MCP_API_TOKEN is set", async () => {
    const guarded = await serveHttp("http", 0, "127.0.0.1", { env: { ...env, MCP_API_TOKEN: "s3cret" } });
    try {
      const url = `http://127.0.0.1:${guarded.port}/mcp`;
      const init = {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: {
            protocolVersion: "2025-06-18",
            capabilities: {},
            clientInfo: { name: "t", version: "1" },
          },
        }),
      };
      expect((await fetch(url, init)).status).toBe(401);
      const wrong = await fetch(url, { ...init, headers: { ...init.headers, authorization: "Bearer nope" } });
      expect(wrong.status).toBe(401);
      const ok = await fetch(url, { ...init, headers: { ...init.headers, authorization: "Bearer s3cret" } });
      expect(ok.status).toBe(200);
    } finally {
      await guarded.close();
    }
  });

  it("answers unknown paths and sessions with JSON errors", async () => {
    const res = await fetch(`http://127.0.0.1:${http.port}/nope`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: "Not found: GET /nope" });
    const stale = await fetch(`http://127.0.0.1:${sse.port}/messages?sessionId=missing`, {
      method: "POST",
      body: "{}",
    });
    expect(stale.status).toBe(404);
  });
});

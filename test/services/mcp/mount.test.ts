import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpApp, type HttpApp } from "../../../src/http/app.ts";
import { mountMcpHttp } from "../../../src/services/mcp/mount.ts";
import { call, connectHttp, serverEnv, tempDirs } from "./helpers.ts";

/** RUN_MODE=mcp: the agent service's app hosts the same tools at /mcp (Streamable HTTP). */

const dirs = tempDirs("mcp-mount");
let app: HttpApp;
let base: string;
let client: Client;

beforeAll(async () => {
  app = createHttpApp({ name: "agent-test" });
  mountMcpHttp(app, { env: serverEnv(dirs), dataDir: dirs.dataDir });
  base = `http://127.0.0.1:${await app.listen(0)}`;
  client = await connectHttp(base);
});

afterAll(async () => {
  await client?.close();
  await app?.close();
  dirs.cleanup();
});

describe("/mcp on the agent service", () => {
  it("serves the registry's tools to the SDK client", async () => {
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(18);
    const r = await call(client, "judge_report");
    expect(r.structuredContent).toMatchObject({ status: "no_reports" });
  });

  it("refuses a foreign Origin with a JSON error", async () => {
    const res = await fetch(`${base}/mcp`, {
      method: "POST",
      headers: { origin: "https://evil.example", "content-type": "application/json" },
      body: "{}",
    });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ error: "Origin https://evil.example is not allowed" });
  });
});

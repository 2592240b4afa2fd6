import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

export const HL = join(import.meta.dirname, "../../../bin/hl.mjs");

/** Temp dirs for one test file: data root, agent home (keystores), and a vault path that does not exist. */
export function tempDirs(prefix: string) {
  const root = mkdtempSync(join(tmpdir(), `${prefix}-`));
  return {
    root,
    dataDir: join(root, "data"),
    home: join(root, "home"),
    vault: join(root, "no-vault"),
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** The server environment: paper network on a given sim world, nothing from the developer's machine. */
export function serverEnv(dirs: ReturnType<typeof tempDirs>, simUrl?: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  for (const k of [
    "HL_PRIVATE_KEY",
    "HL_KEYSTORE_ADDRESS",
    "HL_KEYSTORE_PASSWORD",
    "HL_MCP_POLICY",
    "MCP_API_TOKEN",
    "WOLF_TICK",
    "TICK_INTERVAL",
  ]) {
    delete env[k];
  }
  return {
    ...env,
    DATA_DIR: dirs.dataDir,
    HL_AGENT_HOME: dirs.home,
    OBSIDIAN_VAULT: dirs.vault,
    HL_NETWORK: "paper",
    HL_RATE_WEIGHT_PER_MIN: "100000",
    ...(simUrl ? { HL_API_URL: simUrl } : {}),
  };
}

export function newClient(): Client {
  return new Client({ name: "hl-agent-test", version: "1.0.0" });
}

/** `errors` collects what the client could not parse: anything on stdout that is not JSON-RPC. */
export async function connectStdio(env: Record<string, string>, errors?: Error[]): Promise<Client> {
  const client = newClient();
  if (errors) client.onerror = (e) => errors.push(e);
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [HL, "mcp", "serve"], env, stderr: "pipe" }),
  );
  return client;
}

export async function connectHttp(baseUrl: string): Promise<Client> {
  const client = newClient();
  await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`)));
  return client;
}

export async function connectSse(baseUrl: string): Promise<Client> {
  const client = newClient();
  await client.connect(new SSEClientTransport(new URL(`${baseUrl}/sse`)));
  return client;
}

export function text(r: CallToolResult): string {
  const first = r.content[0];
  return first && first.type === "text" ? first.text : "";
}

export async function call(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
  opts: {
    onprogress?: (p: { progress: number; total?: number; message?: string }) => void;
    signal?: AbortSignal;
  } = {},
): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args }, undefined, {
    timeout: 120_000,
    ...(opts.onprogress ? { onprogress: opts.onprogress, resetTimeoutOnProgress: true } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
  })) as CallToolResult;
}

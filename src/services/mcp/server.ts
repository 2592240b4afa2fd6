import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { dataDir } from "../../config/env.ts";
import { TOOLS } from "./registry.ts";
import { TextAndData, type ToolContext, type ToolDef, ToolError } from "./tool.ts";

const SERVER_INFO = { name: "hl-agent", version: "0.1.0" } as const;

const INSTRUCTIONS =
  "hl-agent: trade on Hyperliquid (or its local simulation) with 14 strategies and the WOLF multi-slot " +
  "orchestrator, review performance with HOWL. Tools marked destructive place orders or start trading " +
  "loops: confirm with the user first. Mainnet needs mainnet: true and confirm: true.";

function asStructured(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : { result: value };
}

/** Turn a tool's return value (or failure) into the MCP result: structured JSON plus its text. */
function toResult(value: unknown): CallToolResult {
  if (typeof value === "string") return { content: [{ type: "text", text: value }] };
  if (value instanceof TextAndData)
    return { content: [{ type: "text", text: value.text }], structuredContent: value.data };
  return {
    content: [{ type: "text", text: JSON.stringify(value, null, 2) }],
    structuredContent: asStructured(value),
  };
}

function errorResult(err: unknown): CallToolResult {
  const message = err instanceof Error ? err.message : String(err);
  const details = err instanceof ToolError ? err.details : undefined;
  return {
    isError: true,
    content: [{ type: "text", text: message }],
    structuredContent: { error: message, ...(details ?? {}) },
  };
}

export interface McpServerOptions {
  env?: NodeJS.ProcessEnv;
  dataDir?: string;
}

/** One MCP server exposing every tool of the registry; each call runs concurrently with the others. */
export function createMcpServer(opts: McpServerOptions = {}): McpServer {
  const env = opts.env ?? process.env;
  const dir = opts.dataDir ?? dataDir(env);
  const server = new McpServer(SERVER_INFO, { instructions: INSTRUCTIONS, capabilities: { logging: {} } });
  for (const tool of TOOLS as ToolDef[]) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.input,
        annotations: { title: tool.title, ...tool.annotations },
      },
      async (args: Record<string, unknown>, extra) => {
        const token = extra._meta?.progressToken;
        const ctx: ToolContext = {
          signal: extra.signal,
          dataDir: dir,
          env,
          progress(p) {
            if (token === undefined) return;
            void extra
              .sendNotification({ method: "notifications/progress", params: { progressToken: token, ...p } })
              .catch(() => {});
          },
        };
        try {
          return toResult(await tool.run(args as never, ctx));
        } catch (err) {
          return errorResult(err);
        }
      },
    );
  }
  return server;
}

import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { meterRequest, serviceMetrics } from "../../http/metrics.ts";
import { checkMcpHttpAccess } from "./http-guard.ts";
import { createMcpServer, type McpServerOptions } from "./server.ts";

export async function serveStdio(opts: McpServerOptions = {}): Promise<() => Promise<void>> {
  const server = createMcpServer(opts);
  await server.connect(new StdioServerTransport());
  return () => server.close();
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "Content-Type": "application/json" });
  res.end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage, limit = 1_048_576): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw Object.assign(new Error("Request body too large"), { status: 413 });
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw Object.assign(new Error("Invalid JSON body"), { status: 400 });
  }
}

/** Handles Streamable HTTP at `/mcp`: one transport and server per session, created on `initialize`. */
export function streamableHttpHandler(opts: McpServerOptions = {}) {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const handle = async (req: IncomingMessage, res: ServerResponse, parsedBody?: unknown): Promise<void> => {
    const sid = req.headers["mcp-session-id"];
    const sessionId = Array.isArray(sid) ? sid[0] : sid;
    let transport = sessionId ? sessions.get(sessionId) : undefined;
    if (sessionId && !transport) return sendJson(res, 404, { error: "Unknown MCP session" });
    if (!transport) {
      if (req.method !== "POST")
        return sendJson(res, 400, { error: "Start a session with an initialize POST" });
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          sessions.set(id, created);
        },
      });
      created.onclose = () => {
        if (created.sessionId) sessions.delete(created.sessionId);
      };
      await createMcpServer(opts).connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res, parsedBody);
  };
  const closeAll = async () => {
    await Promise.all([...sessions.values()].map((t) => t.close()));
    sessions.clear();
  };
  return { handle, closeAll, sessions };
}

export interface McpHttpServer {
  server: Server;
  port: number;
  close(): Promise<void>;
}

/** The routes the MCP server's metrics count requests under (any other path is "unmatched"). */
const MCP_ROUTES = ["/health", "/metrics", "/mcp", "/sse", "/messages"];

/** `--transport http` (Streamable HTTP at /mcp) or `--transport sse` (GET /sse + POST /messages). */
export async function serveHttp(
  transport: "http" | "sse",
  port: number,
  host: string,
  opts: McpServerOptions = {},
): Promise<McpHttpServer> {
  const streamable = streamableHttpHandler(opts);
  const sseSessions = new Map<string, SSEServerTransport>();

  const metrics = serviceMetrics("mcp");
  const server = createServer(async (req, res) => {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    if (meterRequest(metrics, req, res, MCP_ROUTES.includes(path) ? path : "unmatched")) return;
    try {
      if (path === "/health") return sendJson(res, 200, { status: "ok", transport });
      const refusal = checkMcpHttpAccess(req, opts.env ?? process.env);
      if (refusal) return sendJson(res, refusal.status, { error: refusal.error });
      if (transport === "http" && path === "/mcp") {
        const body = req.method === "POST" ? await readBody(req) : undefined;
        return await streamable.handle(req, res, body);
      }
      if (transport === "sse" && path === "/sse" && req.method === "GET") {
        const t = new SSEServerTransport("/messages", res);
        sseSessions.set(t.sessionId, t);
        t.onclose = () => sseSessions.delete(t.sessionId);
        await createMcpServer(opts).connect(t);
        return;
      }
      if (transport === "sse" && path === "/messages" && req.method === "POST") {
        const id = new URL(req.url ?? "", "http://x").searchParams.get("sessionId") ?? "";
        const t = sseSessions.get(id);
        if (!t) return sendJson(res, 404, { error: "Unknown SSE session" });
        const body = await readBody(req);
        return await t.handlePostMessage(req, res, body);
      }
      sendJson(res, 404, { error: `Not found: ${req.method} ${path}` });
    } catch (err) {
      const status = (err as { status?: number }).status ?? 500;
      if (!res.headersSent) sendJson(res, status, { error: (err as Error).message });
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  const bound = (server.address() as { port: number }).port;
  return {
    server,
    port: bound,
    async close() {
      await streamable.closeAll();
      await Promise.all([...sseSessions.values()].map((t) => t.close()));
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

import { randomUUID } from "node:crypto";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { Logger } from "../../core/log.ts";
import { logRequestFailed } from "../../core/log-events.ts";
import { createHttpApp } from "../../http/app.ts";
import { HttpError } from "../../http/errors.ts";
import { ServiceHealth } from "../../http/health.ts";
import { json, TAKEN_OVER, type TakenOver } from "../../http/reply.ts";
import type { HttpRequest } from "../../http/router.ts";
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

/** `--transport http` (Streamable HTTP at /mcp) or `--transport sse` (GET /sse + POST /messages). */
export async function serveHttp(
  transport: "http" | "sse",
  port: number,
  host: string,
  opts: McpServerOptions = {},
): Promise<McpHttpServer> {
  const env = opts.env ?? process.env;
  // The tools are not for browsers of other origins: no CORS headers on any answer.
  const app = createHttpApp({ name: "mcp", corsPaths: () => false });
  const started = Date.now();
  new ServiceHealth(() => ({
    status: "ok",
    transport,
    uptime_s: Math.floor((Date.now() - started) / 1000),
  })).serve(app, ["/health"]);
  const guard = (req: IncomingMessage) => {
    const refusal = checkMcpHttpAccess(req, env);
    if (refusal) throw new HttpError(refusal.status, refusal.error);
  };
  if (transport === "http") {
    const streamable = streamableHttpHandler(opts);
    const route = (req: HttpRequest): TakenOver => {
      void streamable
        .handle(req.raw, req.res, req.body)
        .catch((err: unknown) => failed(app.log, req.res, err));
      return TAKEN_OVER;
    };
    for (const method of ["GET", "POST", "DELETE"] as const) app.route(method, "/mcp", route, { guard });
    app.onClose(() => streamable.closeAll());
  } else {
    const sseSessions = new Map<string, SSEServerTransport>();
    app.get(
      "/sse",
      (req) => {
        const t = new SSEServerTransport("/messages", req.res);
        sseSessions.set(t.sessionId, t);
        t.onclose = () => sseSessions.delete(t.sessionId);
        void createMcpServer(opts)
          .connect(t)
          .catch((err: unknown) => failed(app.log, req.res, err));
        return TAKEN_OVER;
      },
      { guard },
    );
    app.post(
      "/messages",
      (req) => {
        const t = sseSessions.get(req.query.get("sessionId") ?? "");
        if (!t) return json({ error: "Unknown SSE session" }, 404);
        void t
          .handlePostMessage(req.raw, req.res, req.body)
          .catch((err: unknown) => failed(app.log, req.res, err));
        return TAKEN_OVER;
      },
      { guard },
    );
    app.onClose(async () => {
      await Promise.all([...sseSessions.values()].map((t) => t.close()));
    });
  }
  const bound = await app.listen(port, host);
  return { server: app.server, port: bound, close: () => app.close() };
}

/** A transport that failed after taking the response over: answered if nothing was sent yet. */
function failed(log: Logger, res: ServerResponse, err: unknown): void {
  logRequestFailed(log, "MCP", "transport", 500, err);
  if (res.headersSent) res.end();
  else sendJson(res, 500, { error: "Internal server error" });
}

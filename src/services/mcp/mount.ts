import type { FastifyInstance } from "fastify";
import { checkMcpHttpAccess } from "./http-guard.ts";
import type { McpServerOptions } from "./server.ts";
import { streamableHttpHandler } from "./transports.ts";

/** Under RUN_MODE=mcp the agent service hosts the MCP server at `/mcp` (Streamable HTTP). */
export function mountMcpHttp(app: FastifyInstance, opts: McpServerOptions): void {
  const handler = streamableHttpHandler(opts);
  const route = (req: import("fastify").FastifyRequest, reply: import("fastify").FastifyReply) => {
    const refusal = checkMcpHttpAccess(req.raw, opts.env ?? process.env);
    if (refusal) return reply.code(refusal.status).send({ error: refusal.error });
    reply.hijack();
    void handler.handle(req.raw, reply.raw, req.body);
  };
  app.post("/mcp", route);
  app.get("/mcp", route);
  app.delete("/mcp", route);
  app.addHook("onClose", async () => handler.closeAll());
}

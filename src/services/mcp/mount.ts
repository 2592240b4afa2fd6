import type { HttpApp } from "../../http/app.ts";
import { json, TAKEN_OVER } from "../../http/reply.ts";
import type { HttpRequest } from "../../http/router.ts";
import { checkMcpHttpAccess } from "./http-guard.ts";
import type { McpServerOptions } from "./server.ts";
import { streamableHttpHandler } from "./transports.ts";

/** Under RUN_MODE=mcp the agent service hosts the MCP server at `/mcp` (Streamable HTTP). */
export function mountMcpHttp(app: HttpApp, opts: McpServerOptions): void {
  const handler = streamableHttpHandler(opts);
  const route = (req: HttpRequest) => {
    const refusal = checkMcpHttpAccess(req.raw, opts.env ?? process.env);
    if (refusal) return json({ error: refusal.error }, refusal.status);
    void handler.handle(req.raw, req.res, req.body);
    return TAKEN_OVER;
  };
  app.post("/mcp", route);
  app.get("/mcp", route);
  app.delete("/mcp", route);
  app.onClose(() => handler.closeAll());
}

import { DEFAULT_PORTS } from "../../config/defaults.ts";
import { envPort } from "../../config/env.ts";
import { UserError } from "../../core/errors.ts";
import { type RunningService, type ServeContext, type ServeOptions, stringOption } from "../host/types.ts";
import { stopAllJobs } from "./cli-job.ts";
import { serveHttp } from "./transports.ts";

/** `hl mcp serve --transport sse|http`: the tools over HTTP; closing also stops the running jobs. */
export async function serveMcpHttp(opts: ServeOptions, ctx: ServeContext): Promise<RunningService> {
  const transport = stringOption(opts, "transport", "--transport") ?? "http";
  if (transport !== "sse" && transport !== "http") {
    throw new UserError(`unknown transport "${transport}" (expected stdio, sse or http)`);
  }
  const portFlag = stringOption(opts, "port", "--port");
  const port =
    portFlag !== undefined
      ? envPort("--port", DEFAULT_PORTS.mcp, { "--port": portFlag })
      : envPort("MCP_PORT", DEFAULT_PORTS.mcp, ctx.env);
  const host = stringOption(opts, "host", "--host") ?? ctx.env.MCP_HOST ?? "127.0.0.1";
  let server: Awaited<ReturnType<typeof serveHttp>>;
  try {
    server = await serveHttp(transport, port, host, { env: ctx.env });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EADDRINUSE") {
      throw new UserError(`port ${port} is already in use; choose another with --port or MCP_PORT`);
    }
    throw err;
  }
  const path = transport === "http" ? "/mcp" : "/sse";
  ctx.log(`MCP server (${transport}) listening on http://${host}:${server.port}${path}`);
  if (!ctx.env.MCP_API_TOKEN) {
    ctx.log("No MCP_API_TOKEN set: only loopback clients are served (set it to require a bearer token).");
  }
  return {
    async close() {
      await server.close();
      await stopAllJobs("stopped: the MCP server is shutting down");
    },
  };
}

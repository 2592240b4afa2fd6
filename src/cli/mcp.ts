import type { Command } from "commander";
import { DEFAULT_PORTS } from "../config/defaults.ts";
import { envPort } from "../config/env.ts";
import { UserError } from "../core/errors.ts";
import { stopAllJobs } from "../services/mcp/cli-job.ts";
import { TOOLS } from "../services/mcp/registry.ts";
import { toolTable } from "../services/mcp/table.ts";
import { serveHttp, serveStdio } from "../services/mcp/transports.ts";

/** Stop once (a signal and the end of stdin may both arrive), give running jobs their grace, then exit. */
function shutdownOnce(stop: () => Promise<void>): () => void {
  let stopping = false;
  return () => {
    if (stopping) return;
    stopping = true;
    void stop().finally(() => process.exit(0));
  };
}

export function register(program: Command): void {
  const mcp = program
    .command("mcp")
    .description(`The MCP tool server (C): ${TOOLS.length} tools for AI agents`);
  mcp
    .command("tools")
    .description("List the tools (markdown table: arguments, annotations, description)")
    .action(() => {
      process.stdout.write(`${toolTable()}\n`);
    });
  mcp
    .command("serve")
    .description(
      "Serve the tools over stdio (default), legacy SSE (GET /sse + POST /messages) or Streamable HTTP (/mcp)",
    )
    .option("-t, --transport <transport>", "stdio | sse | http", "stdio")
    .option("--port <port>", `port for sse/http (default $MCP_PORT or ${DEFAULT_PORTS.mcp})`)
    .option("--host <host>", "address for sse/http (default $MCP_HOST or 127.0.0.1)")
    .action(async (opts: { transport: string; port?: string; host?: string }) => {
      const transport = opts.transport;
      if (transport === "stdio") {
        // stdout is the JSON-RPC channel: nothing else may be printed there.
        const close = await serveStdio();
        const stop = shutdownOnce(async () => {
          await close();
          await stopAllJobs("stopped: the MCP server is shutting down");
        });
        process.once("SIGINT", stop);
        process.once("SIGTERM", stop);
        // The client went away: stop its trading loops gracefully rather than leave them orphaned.
        process.stdin.once("end", stop);
        return;
      }
      if (transport !== "sse" && transport !== "http") {
        throw new UserError(`unknown transport "${transport}" (expected stdio, sse or http)`);
      }
      const port =
        opts.port !== undefined
          ? envPort("--port", DEFAULT_PORTS.mcp, { "--port": opts.port })
          : envPort("MCP_PORT", DEFAULT_PORTS.mcp);
      const host = opts.host ?? process.env.MCP_HOST ?? "127.0.0.1";
      let server: Awaited<ReturnType<typeof serveHttp>>;
      try {
        server = await serveHttp(transport, port, host);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "EADDRINUSE") {
          throw new UserError(`port ${port} is already in use; choose another with --port or MCP_PORT`);
        }
        throw err;
      }
      const path = transport === "http" ? "/mcp" : "/sse";
      console.log(`MCP server (${transport}) listening on http://${host}:${server.port}${path}`);
      if (!process.env.MCP_API_TOKEN) {
        console.log(
          "No MCP_API_TOKEN set: only loopback clients are served (set it to require a bearer token).",
        );
      }
      const stop = shutdownOnce(async () => {
        await server.close();
        await stopAllJobs("stopped: the MCP server is shutting down");
      });
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
    });
}

import type { Command } from "commander";
import { DEFAULT_PORTS } from "../config/defaults.ts";
import { processContext } from "../services/host/types.ts";
import { stopAllJobs } from "../services/mcp/cli-job.ts";
import { TOOLS } from "../services/mcp/registry.ts";
import { serveMcpHttp } from "../services/mcp/serve.ts";
import { toolTable } from "../services/mcp/table.ts";
import { serveStdio } from "../services/mcp/transports.ts";

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
      const running = await serveMcpHttp(opts, processContext("mcp"));
      const stop = shutdownOnce(() => running.close());
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
    });
}

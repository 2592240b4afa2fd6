import type { Command } from "commander";
import { DEFAULT_PORTS } from "../config/defaults.ts";
import { processContext } from "../services/host/types.ts";
import { stopAllJobs } from "../services/mcp/cli-job.ts";
import { TOOLS } from "../services/mcp/registry.ts";
import { serveMcpHttp } from "../services/mcp/serve.ts";
import { toolTable } from "../services/mcp/table.ts";
import { serveStdio } from "../services/mcp/transports.ts";
import { serveUntilStopped, untilStopSignal } from "./signals.ts";

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
      // Reads of the tools under way are given up at the stop (they may wait for request weight); a
      // trading tool's orders go out from its own `hl` job, which is stopped gracefully (SIGTERM) and
      // waited for, so no order of theirs is cut.
      if (opts.transport === "stdio") {
        // The client went away: stop its trading loops gracefully rather than leave them orphaned.
        const clientGone = new Promise<void>((resolve) => process.stdin.once("end", () => resolve()));
        await serveUntilStopped(
          async () => {
            // stdout is the JSON-RPC channel: nothing else may be printed there.
            const close = await serveStdio();
            return {
              async close() {
                await close();
                await stopAllJobs("stopped: the MCP server is shutting down");
              },
            };
          },
          Promise.race([untilStopSignal(), clientGone]),
        );
      } else {
        await serveUntilStopped(() => serveMcpHttp(opts, processContext("mcp")));
      }
      // stdin may still hold the event loop open.
      process.exit(0);
    });
}

import type { Command } from "commander";
import { resolveNetwork } from "../config/env.ts";
import { UserError } from "../core/errors.ts";
import { readAgentConfig } from "../services/agent/config.ts";
import { startAgentService } from "../services/agent/server.ts";
import { agentMappers, skillInstall, strategyCatalog } from "../services/agent/wiring.ts";
import { DATA_DIR_FLAG, DATA_DIR_HELP } from "./data-dir.ts";
import { requireMainnetConsent, YES_HELP } from "./mainnet.ts";

export function register(program: Command): void {
  const agent = program
    .command("agent")
    .description("The agent service (A): status API, SSE feed, pause/resume, dashboard");
  agent
    .command("serve")
    .description("Run the agent service; RUN_MODE=wolf|strategy|mcp chooses the supervised trading job")
    .option("--port <port>", "port to bind (default $PORT or 8080)")
    .option("--host <host>", "address to bind (default 0.0.0.0)")
    .option(DATA_DIR_FLAG, DATA_DIR_HELP)
    .action(async (opts: { port?: string; host?: string }) => {
      const env = { ...process.env, ...(opts.port ? { PORT: opts.port } : {}) };
      const cfg = readAgentConfig(env);
      if (opts.host) cfg.host = opts.host;
      const svc = await startAgentService(cfg, {
        mappers: await agentMappers(cfg.mode),
        catalog: strategyCatalog,
        skillInstall,
        // The MCP SDK and the trading tools load only under RUN_MODE=mcp.
        mountMcp: async (app) =>
          (await import("../services/mcp/mount.ts")).mountMcpHttp(app, { dataDir: cfg.dataDir }),
      }).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== "EADDRINUSE") throw err;
        throw new UserError(
          `port ${cfg.port} (agent service) is already in use; choose another with --port (or PORT)`,
        );
      });
      console.log(`agent service (${cfg.mode}, ${cfg.network}) listening on http://${cfg.host}:${svc.port}`);
      const shutdown = async () => {
        await svc.close();
        process.exit(0);
      };
      process.once("SIGINT", shutdown);
      process.once("SIGTERM", shutdown);
    });
  agent
    .command("guard")
    .description(
      "Guard WOLF's open slots with no entries (run by the agent service while its trader is paused or given up on)",
    )
    .option("--network <network>", "mainnet | testnet | paper (default: HL_NETWORK, else paper)")
    .option("--data-dir <dir>", "data directory (default $DATA_DIR or ./data)")
    .option("--beside-paused", "the trader is paused and keeps its run lock and state.json: take neither")
    .option("-y, --yes", YES_HELP)
    .action(async (opts: { network?: string; dataDir?: string; yes?: boolean; besidePaused?: boolean }) => {
      const network = resolveNetwork(opts.network);
      requireMainnetConsent(network, opts.yes, "hl agent guard");
      const { runGuardOnly } = await import("../services/agent/guard-command.ts");
      await runGuardOnly({
        network,
        ...(opts.dataDir ? { dataDir: opts.dataDir } : {}),
        besidePausedTrader: opts.besidePaused === true,
      });
    });
}

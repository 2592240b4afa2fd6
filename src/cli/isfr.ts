import type { Command } from "commander";
import { resolveNetwork } from "../config/env.ts";
import { UserError } from "../core/errors.ts";
import { openClientSession } from "../exchange/index.ts";
import { listen } from "../http/service.ts";
import { isfrConfig } from "../services/isfr/config.ts";
import { hlFundingPort } from "../services/isfr/hl-funding.ts";
import { createIsfrService } from "../services/isfr/service.ts";

function portOption(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const port = Number(raw);
  if (!(Number.isInteger(port) && port >= 0 && port <= 65535))
    throw new UserError(`--port must be a port number, got "${raw}"`);
  return port;
}

/** `hl isfr serve`: the ISFR index API and page under /isfr. */
export function register(program: Command): void {
  const isfr = program.command("isfr").description("ISFR: the Implied Secured Funding Rate index");
  isfr
    .command("serve")
    .description(
      "Publish ISFR snapshots and serve the API and page under /isfr (ISFR_PORT, default 8200); on paper the sources are the sim world's",
    )
    .option("--port <port>", "port to listen on (default ISFR_PORT, else 8200)")
    .option(
      "--network <network>",
      "exchange for the funding sources: mainnet | testnet | paper (default HL_NETWORK, else paper)",
    )
    .action(async (opts: { port?: string; network?: string }) => {
      const network = resolveNetwork(opts.network);
      const session = await openClientSession({ network, paperWallet: false });
      // On paper the sim world also stands in for the yields API, so ISFR runs offline.
      const config = isfrConfig(process.env, {
        port: portOption(opts.port),
        defaultYieldsUrl: network === "paper" ? `${session.client.apiUrl}/yields` : undefined,
      });
      for (const note of session.notes) process.stderr.write(`${note}\n`);
      const service = createIsfrService(config, { funding: hlFundingPort(session.client) });
      const port = await listen(service.app, config.port, config.host);
      service.startSnapshots();
      process.stdout.write(
        `ISFR on http://${config.host}:${port}/isfr/ (yields: ${config.yieldsUrl}, snapshot every ${config.snapshotIntervalMs / 1000} s)\n`,
      );
      await new Promise<void>((resolve) => {
        process.once("SIGINT", resolve);
        process.once("SIGTERM", resolve);
      });
      await service.close();
      await session.close();
    });
}

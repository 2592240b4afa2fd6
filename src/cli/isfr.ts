import type { Command } from "commander";
import { processContext } from "../services/host/types.ts";
import { serveIsfr } from "../services/isfr/serve.ts";
import { serveUntilStopped } from "./signals.ts";

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
      await serveUntilStopped(() => serveIsfr(opts, processContext("isfr")));
    });
}

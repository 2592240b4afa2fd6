import type { Command } from "commander";
import { HOSTED_SERVICES_ENV, hostServices, parseHostedSpecs } from "../services/host/run.ts";
import { processContext } from "../services/host/types.ts";
import { serveUntilStopped } from "./signals.ts";

/** `hl services serve`: several public services in one process (how `hl up` runs them unless --split). */
export function register(program: Command): void {
  program
    .command("services", { hidden: true })
    .description("Run several public services in one process")
    .command("serve")
    .description(`Serve the services listed in ${HOSTED_SERVICES_ENV} (JSON, written by \`hl up\`)`)
    .action(async () => {
      const ctx = processContext("services");
      await serveUntilStopped(() => hostServices(parseHostedSpecs(ctx.env[HOSTED_SERVICES_ENV]), ctx));
    });
}

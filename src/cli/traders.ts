import type { Command } from "commander";
import { alerterFromEnv } from "../alerts/webhook.ts";
import { keepRunningOnStrayErrors } from "../core/process-guard.ts";
import { parseHostedSpecs } from "../services/host/run.ts";
import { HOSTED_TRADERS_ENV, hostTraders } from "../services/host/traders.ts";
import { processContext } from "../services/host/types.ts";
import { untilStopSignal } from "./signals.ts";

/** `hl traders serve`: several `hl run` engines in one process (how `hl up` runs its house agents). */
export function register(program: Command): void {
  program
    .command("traders", { hidden: true })
    .description("Run several trading engines in one process")
    .command("serve")
    .description(`Run the \`hl run\` commands listed in ${HOSTED_TRADERS_ENV} (JSON, written by \`hl up\`)`)
    .action(async () => {
      const ctx = processContext("traders", { logConsole: true });
      const strays = alerterFromEnv("hl traders");
      const release = keepRunningOnStrayErrors({
        log: ctx.warn,
        alert: (text) => strays.send("crash", text),
      });
      try {
        const specs = parseHostedSpecs(ctx.env[HOSTED_TRADERS_ENV], HOSTED_TRADERS_ENV);
        const running = await hostTraders(specs, ctx);
        await untilStopSignal();
        await running.close();
      } finally {
        release();
        await strays.flush();
      }
    });
}

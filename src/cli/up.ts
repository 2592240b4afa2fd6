import type { Command } from "commander";
import { type UpFlags, upConfig } from "../services/up/config.ts";
import { formatProgress } from "../services/up/progress.ts";
import { startUp } from "../services/up/run.ts";
import { serviceTable } from "../services/up/table.ts";

/** `hl up` (= `npm start`): the whole platform on a local sim world, in one supervised process tree. */
export function register(program: Command): void {
  program
    .command("up")
    .description(
      "Run everything on a local sim world: WOLF agent + dashboard, house agents, leaderboard, SWP feeds, ISFR, points, MCP",
    )
    .option("--data-dir <dir>", "where every service keeps its files (default: DATA_DIR, else ./data)")
    .option("--agent-port <port>", "agent dashboard and API (default: PORT, else 8080)")
    .option("--leaderboard-port <port>", "leaderboard (default: LEADERBOARD_PORT, else 8090)")
    .option("--mcp-port <port>", "MCP server, Streamable HTTP (default: MCP_PORT, else 8000)")
    .option(
      "--feeds-port <port>",
      "SWP feeds proxy; the feeds take the next 4 ports (default: FEEDS_PORT, else 8100)",
    )
    .option("--isfr-port <port>", "ISFR index (default: ISFR_PORT, else 8200)")
    .option("--points-port <port>", "points API (default: POINTS_PORT, else 8300)")
    .option("--sim-port <port>", "sim world (default: SIM_PORT, else 8900)")
    .option("--seed <n>", "sim market seed (default 1)")
    .option("--speed <x>", "sim clock multiplier, for demos (default 1)")
    .option("--wolf-tick <seconds>", "seconds between WOLF ticks (default 5)")
    .option("--house-tick <seconds>", "seconds between house agent ticks (default 5)")
    .option(
      "--split",
      "run each public service and each house agent in its own process (default: one shared process for the services, one for the house agents; HL_UP_SPLIT=1 does the same)",
    )
    .action(async (flags: UpFlags) => {
      const cfg = upConfig(flags);
      const out = (line: string) => process.stdout.write(`${line}\n`);
      const tty = process.stdout.isTTY === true;
      let lineOpen = false;
      // A message while the TTY progress line is showing goes on its own line above it.
      const log = (line: string) => {
        if (lineOpen) process.stdout.write("\r\x1b[2K");
        lineOpen = false;
        out(line);
      };
      const started = Date.now();
      log(`hl up: starting on a sim world (seed ${cfg.seed}, speed ${cfg.speed}); data in ${cfg.dataDir}`);
      // Listened for before anything starts: a Ctrl-C while the agents register must stop the tree
      // in order, not kill this process and orphan its children. SIGHUP too: a closed terminal must
      // not leave the detached children running.
      const stopAsked = new Promise<void>((resolve) => {
        for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.once(sig, () => resolve());
      });
      const up = await startUp(cfg, { log });
      log(serviceTable(up.children));
      up.ready.then(
        () =>
          log(
            `all services healthy after ${((Date.now() - started) / 1000).toFixed(1)} s — Ctrl-C stops everything`,
          ),
        (err: Error) => log(`warning: ${err.message}`),
      );

      let busy = false;
      const timer = setInterval(
        async () => {
          if (busy) return;
          busy = true;
          try {
            const line = formatProgress(await up.progress());
            if (tty) {
              // Cut to the terminal's width: a wrapped line could not be rewritten in place.
              const width = Math.max(20, (process.stdout.columns ?? 200) - 1);
              process.stdout.write(`\r\x1b[2K${line.slice(0, width)}`);
              lineOpen = true;
            } else out(line);
          } finally {
            busy = false;
          }
        },
        tty ? 3000 : 10_000,
      );

      await stopAsked;
      clearInterval(timer);
      log("stopping: agents first (they save their state), then the services, then the sim world…");
      // A second Ctrl-C means now.
      process.once("SIGINT", () => {
        up.kill();
        process.exit(130);
      });
      await up.stop();
      log("stopped.");
      process.exit(0);
    });
}

import type { Command } from "commander";

/** Each command group registers itself on the program. */
type RegisterCommands = (program: Command) => void;

interface Group {
  /** Top-level command names the group registers. */
  commands: readonly string[];
  load: () => Promise<{ register: RegisterCommands }>;
}

/**
 * The whole CLI. Groups are imported on demand: `hl trade …` loads only the trade module, so a
 * command starts without compiling the rest of the platform; `hl --help` loads them all.
 */
export const GROUPS: readonly Group[] = [
  { commands: ["up"], load: () => import("./up.ts") },
  { commands: ["account"], load: () => import("./account.ts") },
  { commands: ["dex"], load: () => import("./dex.ts") },
  { commands: ["trade"], load: () => import("./trade.ts") },
  { commands: ["orders", "cancel", "close"], load: () => import("./orders.ts") },
  { commands: ["run"], load: () => import("./run.ts") },
  { commands: ["backtest"], load: () => import("./backtest.ts") },
  { commands: ["strategies", "status"], load: () => import("./strategies.ts") },
  { commands: ["wolf", "dsl", "scanner", "movers"], load: () => import("./wolf.ts") },
  { commands: ["howl"], load: () => import("./howl.ts") },
  { commands: ["journal"], load: () => import("./journal.ts") },
  { commands: ["memory"], load: () => import("./memory.ts") },
  { commands: ["skills"], load: () => import("./skills.ts") },
  { commands: ["wallet", "builder", "setup"], load: () => import("./wallet.ts") },
  { commands: ["agent"], load: () => import("./agent.ts") },
  { commands: ["mcp"], load: () => import("./mcp.ts") },
  { commands: ["leaderboard"], load: () => import("./leaderboard.ts") },
  { commands: ["feeds"], load: () => import("./feeds.ts") },
  { commands: ["isfr"], load: () => import("./isfr.ts") },
  { commands: ["points"], load: () => import("./points.ts") },
  { commands: ["sim"], load: () => import("./sim.ts") },
  { commands: ["data"], load: () => import("./data.ts") },
  { commands: ["services"], load: () => import("./services.ts") },
  { commands: ["db"], load: () => import("./db.ts") },
  { commands: ["traders"], load: () => import("./traders.ts") },
];

/** The groups to register for an argv: the one owning the first command word, else all of them. */
export function groupsFor(argv: readonly string[]): readonly Group[] {
  const word = argv.slice(2).find((a) => !a.startsWith("-"));
  // `hl --version` needs no command at all.
  if (word === undefined && argv.slice(2).some((a) => a === "--version" || a === "-V")) return [];
  const owner = word === undefined ? undefined : GROUPS.find((g) => g.commands.includes(word));
  return owner ? [owner] : GROUPS;
}

import { existsSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Command } from "commander";

export const DATA_DIR_FLAG = "--data-dir <dir>";
export const DATA_DIR_HELP = "data directory root (default: DATA_DIR, else ./data)";

/** Commands that work on one trader's data: given the root of an `hl up` tree, they use its agent's. */
const TRADER_COMMANDS = new Set([
  "account",
  "trade",
  "orders",
  "cancel",
  "close",
  "run",
  "status",
  "journal",
  "howl",
  "memory",
  "wolf",
  "dsl",
  "builder",
  "setup",
  "wallet",
  "agent",
]);

const isDir = (p: string) => existsSync(p) && statSync(p).isDirectory();

/**
 * The trader data directory a root names: the root itself, or, for the root `hl up` laid out (its
 * agent's data in <root>/agent, nothing of a trader's own at the root), <root>/agent. hl up's whole
 * layout (with its house agents and sim world) names the agent even beside a trader's files: those
 * came from a command run later with the same default ./data.
 */
export function traderDataDir(root: string): string {
  const own = ["wolf", "cli", "paper", "journal", "memory"].some((d) => isDir(join(root, d)));
  const upLayout = isDir(join(root, "agent")) && isDir(join(root, "logs"));
  const wholeUpLayout = upLayout && isDir(join(root, "house-1")) && isDir(join(root, "sim"));
  return (upLayout && !own) || wholeUpLayout ? join(root, "agent") : root;
}

/**
 * One meaning for --data-dir, on every command: it is DATA_DIR for that command (the paper wallet,
 * state, journal and reports all follow it), and after `hl up` the root finds the agent's data.
 */
export function useDataDirFlag(program: Command): void {
  program.hook("preAction", (_program, action) => {
    const given = action.opts().dataDir;
    if (typeof given !== "string") return;
    let top = action;
    while (top.parent && top.parent !== program) top = top.parent;
    const dir = TRADER_COMMANDS.has(top.name()) ? traderDataDir(resolve(given)) : resolve(given);
    action.setOptionValue("dataDir", dir);
    process.env.DATA_DIR = dir;
  });
}

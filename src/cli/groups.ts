import type { Command } from "commander";
import { register as account } from "./account.ts";
import { register as agent } from "./agent.ts";
import { register as feeds } from "./feeds.ts";
import { register as howl } from "./howl.ts";
import { register as isfr } from "./isfr.ts";
import { register as journal } from "./journal.ts";
import { register as leaderboard } from "./leaderboard.ts";
import { register as mcp } from "./mcp.ts";
import { register as points } from "./points.ts";
import { register as run } from "./run.ts";
import { register as sim } from "./sim.ts";
import { register as strategies } from "./strategies.ts";
import { register as trade } from "./trade.ts";
import { register as wallet } from "./wallet.ts";
import { register as wolf } from "./wolf.ts";

/** Each command group registers itself on the program; this list is the whole CLI. */
export type RegisterCommands = (program: Command) => void;

export const commandGroups: RegisterCommands[] = [
  account,
  agent,
  mcp,
  feeds,
  points,
  trade,
  run,
  strategies,
  isfr,
  leaderboard,
  wolf,
  sim,
  howl,
  journal,
  wallet,
];

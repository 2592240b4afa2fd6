import type { Command } from "commander";

/** Each command group registers itself on the program; this list is the whole CLI. */
export type RegisterCommands = (program: Command) => void;

export const commandGroups: RegisterCommands[] = [];

import type { Command } from "commander";
import { dataDir } from "../config/env.ts";
import { UserError } from "../core/errors.ts";
import {
  MEMORY_EVENT_TYPES,
  type MemoryEventType,
  memoryLines,
  readMemory,
  searchMemory,
} from "../review/memory.ts";
import { DATA_DIR_FLAG, DATA_DIR_HELP } from "./data-dir.ts";

interface MemoryOptions {
  dataDir?: string;
  limit: string;
  json?: boolean;
}

function limitOf(raw: string): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1)
    throw new UserError(`--limit must be a positive whole number, got "${raw}"`);
  return n;
}

const print = (events: readonly unknown[], json: boolean | undefined, text: string) =>
  process.stdout.write(json ? `${JSON.stringify(events, null, 2)}\n` : text);

/** `hl memory list|search`: the agent's memory events, as the MCP tool agent_memory reads them. */
export function register(program: Command): void {
  const memory = program
    .command("memory")
    .description("The agent's memory: parameter changes, reviews, notable trades, judge findings, sessions");
  memory
    .command("list")
    .description("List memory events, newest first")
    .option("--type <event_type>", `only one type: ${MEMORY_EVENT_TYPES.join(" | ")}`)
    .option("-n, --limit <n>", "at most this many events", "20")
    .option("--json", "print the events as JSON (the MCP tool's shape)")
    .option(DATA_DIR_FLAG, DATA_DIR_HELP)
    .action((o: MemoryOptions & { type?: string }) => {
      const events = readMemory({
        dataDir: o.dataDir ?? dataDir(),
        query_type: "recent",
        limit: limitOf(o.limit),
        ...(o.type ? { event_type: o.type as MemoryEventType } : {}),
      });
      print(events, o.json, memoryLines(events));
    });
  memory
    .command("search <text>")
    .description("Find memory events whose summary or details contain the text (any case), newest first")
    .option("-n, --limit <n>", "at most this many events", "20")
    .option("--json", "print the events as JSON")
    .option(DATA_DIR_FLAG, DATA_DIR_HELP)
    .action((text: string, o: MemoryOptions) => {
      const events = searchMemory(o.dataDir ?? dataDir(), text, limitOf(o.limit));
      print(events, o.json, memoryLines(events));
    });
}

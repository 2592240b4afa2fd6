import { z } from "zod";
import {
  latestJudgeReport,
  MEMORY_EVENT_TYPES,
  readJournal,
  readMemory,
  readVaultContext,
} from "../../../review/index.ts";
import { defineTool, READ_ONLY } from "../tool.ts";

export const agentMemory = defineTool({
  name: "agent_memory",
  title: "Agent memory",
  group: "context",
  description:
    "Read the agent's memory: recent events (param changes, HOWL reviews, notable trades, judge findings, session " +
    "start/end), newest first, or the playbook of per-instrument/per-signal results.",
  input: {
    query_type: z.enum(["recent", "playbook"]).default("recent").describe("recent events or the playbook"),
    limit: z.number().int().positive().max(1000).default(20).describe("Maximum events (default 20)"),
    event_type: z.enum(MEMORY_EVENT_TYPES).nullable().default(null).describe("Only events of this type"),
  },
  annotations: READ_ONLY,
  async run(args, ctx) {
    const result = readMemory({
      dataDir: ctx.dataDir,
      query_type: args.query_type,
      limit: args.limit,
      ...(args.event_type ? { event_type: args.event_type } : {}),
    });
    return args.query_type === "playbook" ? { playbook: result } : { events: result };
  },
});

export const tradeJournal = defineTool({
  name: "trade_journal",
  title: "Trade journal",
  group: "context",
  description:
    "Structured records of closed positions, newest first: signal source, entry and exit reasoning, close reason, " +
    "quality rating, PnL and ROE. Optionally only one UTC date.",
  input: {
    date: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/, "date must be YYYY-MM-DD")
      .nullable()
      .default(null)
      .describe("UTC date"),
    limit: z.number().int().positive().max(1000).default(20).describe("Maximum entries (default 20)"),
  },
  annotations: READ_ONLY,
  async run(args, ctx) {
    return {
      entries: readJournal({
        dataDir: ctx.dataDir,
        limit: args.limit,
        ...(args.date ? { date: args.date } : {}),
      }),
    };
  },
});

export const judgeReport = defineTool({
  name: "judge_report",
  title: "Judge report",
  group: "context",
  description:
    "Latest signal-quality evaluation: false-positive rate per signal source, accuracy by instrument and config " +
    'recommendations; {status:"no_reports"} before the first review.',
  input: {},
  annotations: READ_ONLY,
  async run(_args, ctx) {
    return latestJudgeReport(ctx.dataDir);
  },
});

export const obsidianContext = defineTool({
  name: "obsidian_context",
  title: "Notes vault context",
  group: "context",
  description:
    "Trading context from a markdown notes vault (OBSIDIAN_VAULT, default ~/obsidian-vault): watchlists, market " +
    'theses and risk preferences; {status:"unavailable"} when there is no vault.',
  input: {},
  annotations: READ_ONLY,
  async run(_args, ctx) {
    return readVaultContext({ env: ctx.env });
  },
});

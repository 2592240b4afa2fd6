import { join } from "node:path";
import { z } from "zod";
import { D, num } from "../core/decimal.ts";
import { UserError } from "../core/errors.ts";
import { appendJsonLine, readJsonLines } from "./jsonl.ts";
import { type Playbook, readPlaybook } from "./playbook.ts";

export const MEMORY_EVENT_TYPES = [
  "param_change",
  "howl_review",
  "notable_trade",
  "judge_finding",
  "session_start",
  "session_end",
] as const;
export type MemoryEventType = (typeof MEMORY_EVENT_TYPES)[number];

const memoryEventSchema = z.object({
  event_type: z.enum(MEMORY_EVENT_TYPES),
  timestamp_ms: z.number().int(),
  payload: z.record(z.string(), z.unknown()),
  summary: z.string(),
});
export type MemoryEvent = z.infer<typeof memoryEventSchema>;

function memoryDir(dataDir: string): string {
  return join(dataDir, "memory");
}

export function memoryEventsPath(dataDir: string): string {
  return join(memoryDir(dataDir), "events.jsonl");
}

export function appendMemoryEvent(dataDir: string, event: MemoryEvent): void {
  appendJsonLine(memoryEventsPath(dataDir), memoryEventSchema.parse(event));
}

/** All events, oldest first (file order). */
export function readMemoryEvents(dataDir: string): MemoryEvent[] {
  return readJsonLines(memoryEventsPath(dataDir), memoryEventSchema).records;
}

const DEFAULT_MEMORY_LIMIT = 20;

interface ReadMemoryOptions {
  dataDir: string;
  query_type?: "recent" | "playbook";
  limit?: number;
  event_type?: MemoryEventType;
}

/** `recent`: events newest first, optionally of one type, at most `limit`; `playbook`: the playbook entries. */
export function readMemory(opts: ReadMemoryOptions & { query_type: "playbook" }): Playbook["entries"];
export function readMemory(opts: ReadMemoryOptions & { query_type?: "recent" }): MemoryEvent[];
export function readMemory(opts: ReadMemoryOptions): MemoryEvent[] | Playbook["entries"];
export function readMemory(opts: ReadMemoryOptions): MemoryEvent[] | Playbook["entries"] {
  const queryType = opts.query_type ?? "recent";
  if (queryType === "playbook") return readPlaybook(opts.dataDir).playbook.entries;
  if (queryType !== "recent")
    throw new UserError(`query_type must be "recent" or "playbook", got "${queryType}"`);
  if (opts.event_type !== undefined && !MEMORY_EVENT_TYPES.includes(opts.event_type)) {
    throw new UserError(
      `unknown event_type "${opts.event_type}" (expected one of ${MEMORY_EVENT_TYPES.join(", ")})`,
    );
  }
  const limit = opts.limit ?? DEFAULT_MEMORY_LIMIT;
  if (!Number.isInteger(limit) || limit < 1)
    throw new UserError(`limit must be a positive integer, got ${limit}`);
  const events = readMemoryEvents(opts.dataDir)
    .map((e, i) => ({ e, i }))
    .filter(({ e }) => opts.event_type === undefined || e.event_type === opts.event_type)
    .sort((a, b) => b.e.timestamp_ms - a.e.timestamp_ms || b.i - a.i)
    .map(({ e }) => e);
  return events.slice(0, limit);
}

/** Timestamp of the newest event of a type, or null. */
export function lastEventMs(dataDir: string, type: MemoryEventType): number | null {
  let last: number | null = null;
  for (const e of readMemoryEvents(dataDir)) {
    if (e.event_type === type && (last === null || e.timestamp_ms > last)) last = e.timestamp_ms;
  }
  return last;
}

/** What a trading loop knows at start and shutdown. */
export interface SessionSnapshot {
  tick_count: number;
  total_pnl: string | number;
  active_slots: number;
  total_trades: number;
}

/** A `session_start` / `session_end` event with the standard payload and summary. Pure. */
export function sessionMemoryEvent(
  type: "session_start" | "session_end",
  s: SessionSnapshot,
  nowMs: number,
): MemoryEvent {
  const pnl = new D(s.total_pnl);
  const money = `$${pnl.isNegative() && !pnl.isZero() ? "-" : "+"}${pnl.abs().toFixed(2)}`;
  return {
    event_type: type,
    timestamp_ms: nowMs,
    payload: {
      tick_count: s.tick_count,
      total_pnl: num(pnl, 4),
      active_slots: s.active_slots,
      total_trades: s.total_trades,
    },
    summary: `Session ${type === "session_start" ? "start" : "end"}: ${s.tick_count} ticks, PnL ${money}, ${s.total_trades} trades, ${s.active_slots} open`,
  };
}

/** Append a `session_start` / `session_end` event for a trading loop. */
export function rememberSession(
  dataDir: string,
  type: "session_start" | "session_end",
  s: SessionSnapshot,
  nowMs: number,
): void {
  appendMemoryEvent(dataDir, sessionMemoryEvent(type, s, nowMs));
}

/** Events whose summary or payload contains `text` (any case), newest first, at most `limit`. */
export function searchMemory(dataDir: string, text: string, limit = DEFAULT_MEMORY_LIMIT): MemoryEvent[] {
  const needle = text.trim().toLowerCase();
  if (needle === "") throw new UserError("give the text to search for");
  if (!Number.isInteger(limit) || limit < 1)
    throw new UserError(`limit must be a positive integer, got ${limit}`);
  return readMemoryEvents(dataDir)
    .map((e, i) => ({ e, i }))
    .filter(({ e }) => `${e.summary}\n${JSON.stringify(e.payload)}`.toLowerCase().includes(needle))
    .sort((a, b) => b.e.timestamp_ms - a.e.timestamp_ms || b.i - a.i)
    .slice(0, limit)
    .map(({ e }) => e);
}

/** One line per event: `2026-01-01 12:00:05 UTC  howl_review  <summary>`. */
export function memoryLines(events: readonly MemoryEvent[]): string {
  if (events.length === 0) return "No memory events yet.\n";
  const at = (ms: number) => `${new Date(ms).toISOString().slice(0, 19).replace("T", " ")} UTC`;
  const width = Math.max(...events.map((e) => e.event_type.length));
  return events.map((e) => `${at(e.timestamp_ms)}  ${e.event_type.padEnd(width)}  ${e.summary}\n`).join("");
}

import { join } from "node:path";
import { z } from "zod";
import { type DecLike, dec, num, wire } from "../core/decimal.ts";
import { quarantine, readJson, writeJsonAtomic } from "../store/atomic.ts";

/** Accumulated knowledge for one (instrument, signal source) pair. Totals are exact decimal strings. */
const playbookEntrySchema = z.object({
  instrument: z.string(),
  signal_source: z.string(),
  trade_count: z.number().int(),
  win_count: z.number().int(),
  total_pnl: z.string(),
  total_roe: z.string(),
  total_holding_ms: z.number(),
  avg_holding_ms: z.number(),
  win_rate: z.number(),
  avg_pnl: z.number(),
  avg_roe: z.number(),
  last_updated_ms: z.number().int(),
});

const playbookSchema = z.object({
  version: z.literal(1),
  entries: z.record(z.string(), playbookEntrySchema),
  /** Ids of every closed trade already folded in: what makes a second review of the same trades a no-op. */
  counted_ids: z.array(z.string()),
});
export type Playbook = z.infer<typeof playbookSchema>;

/** One closed trade to learn from; `id` must be stable across reviews (e.g. the entry fill's uid). */
interface PlaybookTrade {
  id: string;
  instrument: string;
  source: string;
  pnl: DecLike;
  roe_pct: DecLike;
  holding_ms: number;
}

export function playbookPath(dataDir: string): string {
  return join(dataDir, "memory", "playbook.json");
}

function playbookKey(instrument: string, source: string): string {
  return `${instrument}:${source}`;
}

function emptyPlaybook(): Playbook {
  return { version: 1, entries: {}, counted_ids: [] };
}

interface PlaybookRead {
  playbook: Playbook;
  /** Where a corrupt playbook was moved aside, if one was found. */
  quarantined: string | null;
}

export function readPlaybook(dataDir: string): PlaybookRead {
  const path = playbookPath(dataDir);
  const read = readJson<unknown>(path);
  if (read.kind === "missing") return { playbook: emptyPlaybook(), quarantined: null };
  if (read.kind === "ok") {
    const parsed = playbookSchema.safeParse(read.value);
    if (parsed.success) return { playbook: parsed.data, quarantined: null };
  }
  return { playbook: emptyPlaybook(), quarantined: quarantine(path) };
}

/** Pure: fold trades into a playbook, skipping any id already counted. */
export function foldPlaybook(
  playbook: Playbook,
  trades: readonly PlaybookTrade[],
  nowMs: number,
): { playbook: Playbook; added: number } {
  const counted = new Set(playbook.counted_ids);
  const entries = { ...playbook.entries };
  let added = 0;
  for (const t of trades) {
    if (counted.has(t.id)) continue;
    counted.add(t.id);
    added++;
    const key = playbookKey(t.instrument, t.source);
    const prev = entries[key];
    const count = (prev?.trade_count ?? 0) + 1;
    const wins = (prev?.win_count ?? 0) + (dec(t.pnl).gt(0) ? 1 : 0);
    const totalPnl = dec(prev?.total_pnl ?? 0).plus(dec(t.pnl));
    const totalRoe = dec(prev?.total_roe ?? 0).plus(dec(t.roe_pct));
    const totalHolding = (prev?.total_holding_ms ?? 0) + t.holding_ms;
    entries[key] = {
      instrument: t.instrument,
      signal_source: t.source,
      trade_count: count,
      win_count: wins,
      total_pnl: wire(totalPnl),
      total_roe: wire(totalRoe),
      total_holding_ms: totalHolding,
      avg_holding_ms: Math.round(totalHolding / count),
      win_rate: num(dec(wins).div(count).times(100), 1),
      avg_pnl: num(totalPnl.div(count), 4),
      avg_roe: num(totalRoe.div(count), 2),
      last_updated_ms: nowMs,
    };
  }
  return { playbook: { version: 1, entries, counted_ids: [...counted] }, added };
}

/** Fold closed trades into `$DATA_DIR/memory/playbook.json`; each trade id counts once, however often reviews run. */
export function recordPlaybookTrades(
  dataDir: string,
  trades: readonly PlaybookTrade[],
  nowMs: number,
): { added: number; quarantined: string | null } {
  const { playbook, quarantined } = readPlaybook(dataDir);
  const folded = foldPlaybook(playbook, trades, nowMs);
  if (folded.added > 0 || quarantined) writeJsonAtomic(playbookPath(dataDir), folded.playbook);
  return { added: folded.added, quarantined };
}

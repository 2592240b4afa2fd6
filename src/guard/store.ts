import { readdirSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { readJson, writeJsonAtomic } from "../store/atomic.ts";
import type { BackstopState } from "./backstops.ts";
import { type DslConfig, dslConfigSchema } from "./config.ts";
import type { DslState } from "./dsl.ts";

/** One guarded position on disk: `<dir>/<position_id>.json` = {state, config}, written atomically. */
export interface DslGuardFile {
  state: DslState;
  config: DslConfig;
  /** `hl dsl start`: the stop resting on the exchange for this position (added field). */
  backstop?: BackstopState;
}

const stateSchema = z.object({
  position_id: z.string().min(1),
  instrument: z.string(),
  entry_price: z.number().positive(),
  position_size: z.string(),
  high_water: z.number(),
  high_water_ts: z.number(),
  tier_index: z.number().int().min(-1),
  breach_count: z.number().int().min(0),
  breach_ts: z.number().default(0),
  current_roe: z.number(),
  created_ts: z.number(),
  last_check_ts: z.number(),
  closed: z.boolean(),
  close_reason: z.string(),
  close_price: z.number(),
  close_ts: z.number(),
});
const backstopSchema = z.object({
  status: z.enum(["resting", "refused", "none"]),
  cloid: z.string(),
  oid: z.number().int().nullable(),
  triggerPx: z.string(),
  size: z.string(),
  updatedMs: z.number(),
  message: z.string().optional(),
});
const fileSchema = z.object({
  state: stateSchema,
  config: dslConfigSchema,
  backstop: backstopSchema.optional(),
});

/** Position ids become file names: keep them to a safe alphabet. */
function fileOf(dir: string, positionId: string): string {
  if (!/^[\w.:-]+$/.test(positionId)) throw new Error(`unsafe DSL position id "${positionId}"`);
  return join(dir, `${positionId.replaceAll(":", "_")}.json`);
}

/** The last-good copy beside each guard file (not `*.json`, so listings skip it). */
const backupOf = (file: string) => `${file}.bak`;

/** Save the guard and its last-good copy, each atomically: damage to one file leaves the other. */
export function saveGuard(dir: string, guard: DslGuardFile): void {
  const file = fileOf(dir, guard.state.position_id);
  writeJsonAtomic(file, guard);
  writeJsonAtomic(backupOf(file), guard);
}

type GuardLoad =
  | { kind: "missing" }
  | { kind: "ok"; guard: DslGuardFile }
  | { kind: "corrupt"; error: string };

/** Load a guard; a missing or corrupt file falls back to its last-good copy. */
export function loadGuard(dir: string, positionId: string): GuardLoad {
  const file = fileOf(dir, positionId);
  const main = readGuardFile(file);
  if (main.kind === "ok") return main;
  const backup = readGuardFile(backupOf(file));
  return backup.kind === "ok" ? backup : main;
}

function readGuardFile(path: string): GuardLoad {
  const r = readJson<unknown>(path);
  if (r.kind !== "ok") return r;
  const parsed = fileSchema.safeParse(r.value);
  if (!parsed.success) return { kind: "corrupt", error: parsed.error.issues[0]?.message ?? "invalid" };
  return { kind: "ok", guard: parsed.data };
}

/** Every guard file in `dir` (corrupt ones reported separately), sorted by position id. */
export function listGuards(dir: string): { guards: DslGuardFile[]; corrupt: string[] } {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith(".json"));
  } catch {
    return { guards: [], corrupt: [] };
  }
  const guards: DslGuardFile[] = [];
  const corrupt: string[] = [];
  for (const name of names.sort()) {
    const file = join(dir, name);
    let r = readGuardFile(file);
    if (r.kind !== "ok") r = readGuardFile(backupOf(file));
    if (r.kind === "ok") guards.push(r.guard);
    else corrupt.push(name);
  }
  return { guards, corrupt };
}

import { statSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { readJson } from "../../store/atomic.ts";
import type { RunMode } from "./config.ts";

/** The contract's status object: `{status:"stopped"}` or one of the two running shapes. */
export type StatusObject =
  | { status: "stopped" }
  | ({ status: "running"; tick_count: number } & Record<string, unknown>);

/** Pure mappings from what the trading child writes to the contract's shapes. */
export interface StatusMappers {
  wolf(state: unknown): StatusObject;
  wolfText(state: unknown): string;
  engine(kv: Record<string, string>): StatusObject;
  engineText(status: StatusObject): string;
}

interface Cached<T> {
  stamp: string;
  value: T;
}

const STOPPED: StatusObject = { status: "stopped" };

function stampOf(paths: string[]): { stamp: string; mtimeMs: number } | undefined {
  let stamp = "";
  let mtimeMs = 0;
  let any = false;
  for (const p of paths) {
    try {
      const s = statSync(p);
      stamp += `${p}:${s.mtimeMs}:${s.size};`;
      mtimeMs = Math.max(mtimeMs, s.mtimeMs);
      any = true;
    } catch {
      stamp += `${p}:-;`;
    }
  }
  return any ? { stamp, mtimeMs } : undefined;
}

/**
 * Reads the child's state in-process, re-reading only when the file changed (mtime/size), so a
 * request never spawns a process and a burst of requests costs one read.
 */
export class StatusReader {
  private wolfCache: Cached<unknown> | undefined;
  private engineCache: Cached<Record<string, string>> | undefined;
  private db: Database.Database | undefined;
  readonly wolfPath: string;
  readonly enginePath: string;

  constructor(
    dataDir: string,
    private readonly mode: RunMode,
    private readonly mappers: StatusMappers,
    private readonly isAlive: () => boolean,
  ) {
    this.wolfPath = join(dataDir, "wolf", "state.json");
    this.enginePath = join(dataDir, "cli", "state.db");
  }

  private statePaths(): string[] {
    if (this.mode === "wolf") return [this.wolfPath];
    if (this.mode === "strategy") return [this.enginePath, `${this.enginePath}-wal`];
    return [];
  }

  /** The raw wolf state (last good parse), or undefined. */
  private wolfState(): unknown {
    const st = stampOf([this.wolfPath]);
    if (!st) return undefined;
    if (this.wolfCache?.stamp === st.stamp) return this.wolfCache.value;
    const read = readJson<unknown>(this.wolfPath);
    if (read.kind !== "ok") return this.wolfCache?.value;
    this.wolfCache = { stamp: st.stamp, value: read.value };
    return read.value;
  }

  private engineKv(): Record<string, string> | undefined {
    const st = stampOf([this.enginePath, `${this.enginePath}-wal`]);
    if (!st) return undefined;
    if (this.engineCache?.stamp === st.stamp) return this.engineCache.value;
    try {
      this.db ??= new Database(this.enginePath, { readonly: true, fileMustExist: true });
      const rows = this.db.prepare("SELECT key, value FROM kv").all() as { key: string; value: string }[];
      const kv: Record<string, string> = {};
      for (const r of rows) kv[r.key] = r.value;
      this.engineCache = { stamp: st.stamp, value: kv };
      return kv;
    } catch {
      this.db?.close();
      this.db = undefined;
      return this.engineCache?.value;
    }
  }

  /** Status for `/api/status` and the SSE feed: stopped whenever no trading child is alive. */
  status(): StatusObject {
    if (!this.isAlive()) return STOPPED;
    if (this.mode === "wolf") {
      const state = this.wolfState();
      return state === undefined ? STOPPED : this.mappers.wolf(state);
    }
    if (this.mode === "strategy") {
      const kv = this.engineKv();
      return kv === undefined ? STOPPED : this.mappers.engine(kv);
    }
    return STOPPED;
  }

  /** Plain-text status for humans (`GET /status`). */
  text(): string {
    if (this.mode === "wolf") {
      const state = this.wolfState();
      const body =
        state === undefined ? "No WOLF state found. Run 'hl wolf run' first." : this.mappers.wolfText(state);
      return this.isAlive() ? body : `Agent stopped.\n${body}`;
    }
    if (this.mode === "strategy") {
      const kv = this.engineKv();
      if (kv === undefined) return "No strategy state found. Run 'hl run STRATEGY' first.";
      const running = this.mappers.engine(kv);
      return this.isAlive()
        ? this.mappers.engineText(running)
        : `Agent stopped.\n${this.mappers.engineText(running)}`;
    }
    return "MCP mode: no trading agent runs in this service.";
  }

  /** WOLF's price stream as the child last saved it ("degraded": polling instead); null when unknown. */
  priceStream(): "ok" | "degraded" | null {
    if (this.mode !== "wolf" || !this.isAlive()) return null;
    const v = (this.wolfState() as { price_stream?: unknown } | undefined)?.price_stream;
    return v === "ok" || v === "degraded" ? v : null;
  }

  /** Seconds since the child last wrote its state, or null before the first write. */
  lastTickAgeS(nowMs = Date.now()): number | null {
    const st = stampOf(this.statePaths());
    return st ? Math.max(0, Math.round((nowMs - st.mtimeMs) / 100) / 10) : null;
  }

  close(): void {
    this.db?.close();
    this.db = undefined;
  }
}

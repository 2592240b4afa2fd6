import { type FSWatcher, statSync, watch } from "node:fs";
import { join } from "node:path";
import type Database from "better-sqlite3";
import { readJson } from "../../store/atomic.ts";
import { sqliteOnDemand } from "../../store/sqlite-on-demand.ts";
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

const STOPPED: StatusObject = { status: "stopped" };
const STOPPED_JSON = Buffer.from(JSON.stringify(STOPPED));

/**
 * Without a change notice the state files are still stat'ed at most this often, so a missed or
 * unsupported fs.watch event (network filesystems, a directory created later) delays a new state by
 * at most this much.
 */
const STAT_INTERVAL_MS = 250;

/** What the state files looked like when last read: inode (each atomic rename makes a new one), size, mtime. */
function stampOf(paths: string[]): { stamp: string; mtimeMs: number } | undefined {
  let stamp = "";
  let mtimeMs = 0;
  let any = false;
  for (const p of paths) {
    try {
      const s = statSync(p);
      stamp += `${s.ino}:${s.mtimeMs}:${s.size};`;
      mtimeMs = Math.max(mtimeMs, s.mtimeMs);
      any = true;
    } catch {
      stamp += "-;";
    }
  }
  return any ? { stamp, mtimeMs } : undefined;
}

/** Everything served from one version of the state, each built on first use and kept until it changes. */
interface Views {
  status?: StatusObject;
  json?: Buffer;
  text?: string;
}

/**
 * Reads the child's state in-process and keeps the responses built from it: `/api/status` and
 * `/status` are served from bytes serialised once per state change. A change is noticed through
 * fs.watch on the state directory, with a stat at most every 250 ms as the backstop, so a request
 * costs neither a stat nor a serialisation while nothing changes.
 */
export class StatusReader {
  private raw: unknown;
  private stamp: string | undefined;
  private mtimeMs: number | null = null;
  private views: Views = {};
  private dirty = true;
  private checkedAt = Number.NEGATIVE_INFINITY;
  private watcher: FSWatcher | undefined;
  private db: Database.Database | undefined;
  private closed = false;
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

  private stateDir(): string | undefined {
    if (this.mode === "wolf") return join(this.wolfPath, "..");
    if (this.mode === "strategy") return join(this.enginePath, "..");
    return undefined;
  }

  /** Watch the state directory (it may appear only once the child first writes). */
  private ensureWatcher(): void {
    if (this.watcher || this.closed) return;
    const dir = this.stateDir();
    if (!dir) return;
    try {
      this.watcher = watch(dir, { persistent: false }, (_event, name) => {
        if (name === null || name.startsWith("state.")) this.dirty = true;
      });
      this.watcher.on("error", () => {
        this.watcher?.close();
        this.watcher = undefined;
        this.dirty = true;
      });
    } catch {
      // not there yet: the stat interval covers it, and the next check tries again
    }
  }

  /** Re-read the state if it may have changed (notice from the watcher, or the interval ran out). */
  private refresh(): void {
    if (this.mode === "mcp") return;
    const now = performance.now();
    if (!this.dirty && now - this.checkedAt < STAT_INTERVAL_MS) return;
    this.dirty = false;
    this.checkedAt = now;
    this.ensureWatcher();
    const st = stampOf(this.statePaths());
    if (!st) return; // never written (or removed): keep what was last read
    this.mtimeMs = st.mtimeMs;
    if (st.stamp === this.stamp) return;
    const read = this.mode === "wolf" ? this.readWolf() : this.readEngine();
    // Unreadable right now (e.g. the database busy): the last good state stays, and the stamp is
    // left as it was so the next check tries again.
    if (read === undefined) return;
    this.raw = read;
    this.stamp = st.stamp;
    this.views = {};
  }

  private readWolf(): unknown {
    const read = readJson<unknown>(this.wolfPath);
    return read.kind === "ok" ? read.value : undefined;
  }

  private readEngine(): Record<string, string> | undefined {
    try {
      this.db ??= new (sqliteOnDemand())(this.enginePath, { readonly: true, fileMustExist: true });
      const rows = this.db.prepare("SELECT key, value FROM kv").all() as { key: string; value: string }[];
      const kv: Record<string, string> = {};
      for (const r of rows) kv[r.key] = r.value;
      return kv;
    } catch {
      this.db?.close();
      this.db = undefined;
      return undefined;
    }
  }

  /** The state mapped to the contract's running shape, or undefined before the first state. */
  private running(): StatusObject | undefined {
    this.refresh();
    if (this.raw === undefined) return undefined;
    this.views.status ??=
      this.mode === "wolf"
        ? this.mappers.wolf(this.raw)
        : this.mappers.engine(this.raw as Record<string, string>);
    return this.views.status;
  }

  /** Status for `/api/status` and the SSE feed: stopped whenever no trading child is alive. */
  status(): StatusObject {
    if (!this.isAlive()) return STOPPED;
    return this.running() ?? STOPPED;
  }

  /** `status()` as JSON bytes, serialised once per state change. */
  statusJson(): Buffer {
    if (!this.isAlive()) return STOPPED_JSON;
    const status = this.running();
    if (status === undefined) return STOPPED_JSON;
    this.views.json ??= Buffer.from(JSON.stringify(status));
    return this.views.json;
  }

  /** Plain-text status for humans (`GET /status`). */
  text(): string {
    if (this.mode === "mcp") return "MCP mode: no trading agent runs in this service.";
    const running = this.running();
    if (running === undefined && this.mode === "strategy")
      return "No strategy state found. Run 'hl run STRATEGY' first.";
    if (running === undefined) this.views.text = "No WOLF state found. Run 'hl wolf run' first.";
    this.views.text ??=
      this.mode === "wolf"
        ? this.mappers.wolfText(this.raw)
        : this.mappers.engineText(running as StatusObject);
    return this.isAlive() ? this.views.text : `Agent stopped.\n${this.views.text}`;
  }

  /** WOLF's price stream as the child last saved it ("degraded": polling instead); null when unknown. */
  priceStream(): "ok" | "degraded" | null {
    if (this.mode !== "wolf" || !this.isAlive()) return null;
    this.refresh();
    const v = (this.raw as { price_stream?: unknown } | undefined)?.price_stream;
    return v === "ok" || v === "degraded" ? v : null;
  }

  /**
   * Open WOLF slots whose exchange stop (backstop) is not resting — refused by the exchange, or none
   * placed — as the trader last saved them. Slots without a backstop record are not listed.
   */
  unprotected(): { slot_id: number; instrument: string; backstop: string }[] {
    if (this.mode !== "wolf") return [];
    this.refresh();
    const slots = (this.raw as { slots?: unknown } | undefined)?.slots;
    if (!Array.isArray(slots)) return [];
    return slots.flatMap((raw) => {
      const s = raw as { slot_id?: unknown; instrument?: unknown; status?: unknown; backstop?: unknown };
      const status = (s.backstop as { status?: unknown } | undefined)?.status;
      const open = s.status === "active" || s.status === "closing";
      if (!open || typeof status !== "string" || status === "resting") return [];
      return [{ slot_id: Number(s.slot_id), instrument: String(s.instrument), backstop: status }];
    });
  }

  /** Guarded coins whose own stream is silent (polled instead), as the WOLF state last said. */
  degradedCoins(): string[] {
    if (this.mode !== "wolf") return [];
    this.refresh();
    const v = (this.raw as { price_stream_coins?: unknown } | undefined)?.price_stream_coins;
    return Array.isArray(v) ? v.filter((c): c is string => typeof c === "string") : [];
  }

  /** Seconds since the child last wrote its state, or null before the first write. */
  lastTickAgeS(nowMs = Date.now()): number | null {
    this.refresh();
    return this.mtimeMs === null ? null : Math.max(0, Math.round((nowMs - this.mtimeMs) / 100) / 10);
  }

  close(): void {
    this.closed = true;
    this.watcher?.close();
    this.watcher = undefined;
    this.db?.close();
    this.db = undefined;
  }
}

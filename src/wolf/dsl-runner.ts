import { randomBytes } from "node:crypto";
import { dec, wire } from "../core/decimal.ts";
import { UserError } from "../core/errors.ts";
import { type DslConfig, dslConfigFromPreset } from "../guard/config.ts";
import { type DslResult, evaluateDsl, markDslClosed, newDslState } from "../guard/dsl.ts";
import { type DslGuardFile, listGuards, saveGuard } from "../guard/store.ts";
import type { WolfPort } from "./port.ts";

/**
 * `hl dsl start`: guard one existing exchange position with a DSL trailing stop, outside WOLF. Every
 * streamed mid (and a poll each tick) is evaluated; a close sends a reduce-only IOC for what is
 * still open, and the guard is marked closed only when the exchange shows the position flat.
 */
export interface StandaloneGuardOptions {
  port: WolfPort;
  coin: string;
  dir: string;
  preset: string;
  leverage: number;
  /** the absolute floor at −3 % ROE when the preset has none (as the predecessor's standalone guard) */
  autoFloor?: boolean;
  slippage?: number;
  log?: (line: string) => void;
  /** Operator alert for a failed close (default: none). */
  alert?: (text: string) => void;
  /** Guard this entry instead of reading the exchange's position (`hl dsl start -e/-s/-d`). */
  given?: GivenEntry;
  /** Evaluate and report, but never send the close (`--dry-run`). */
  dryRun?: boolean;
}

export interface GivenEntry {
  entry: number;
  size: string;
  direction: "long" | "short";
}

/** The `-e/-s/-d` options as an entry to guard: all three or none; a bad value is a UserError. */
export function givenEntry(o: { entry?: string; size?: string; direction?: string }): GivenEntry | undefined {
  const set = [o.entry, o.size, o.direction].filter((v) => v !== undefined).length;
  if (set === 0) return undefined;
  if (set !== 3) throw new UserError("give the entry with all of -e PRICE, -s SIZE and -d long|short");
  const entry = Number(o.entry);
  if (!(entry > 0)) throw new UserError(`-e must be a positive price, got "${o.entry}"`);
  if (!/^\d+(\.\d+)?$/.test(o.size!) || dec(o.size!).lte(0))
    throw new UserError(`-s must be a positive size, got "${o.size}"`);
  if (o.direction !== "long" && o.direction !== "short")
    throw new UserError(`-d must be long or short, got "${o.direction}"`);
  return { entry, size: o.size!, direction: o.direction };
}

/** Back-off between failed close attempts: 1 s doubling to 30 s. */
const RETRY_MIN_MS = 1_000;
const RETRY_MAX_MS = 30_000;

export class StandaloneGuard {
  guard: DslGuardFile;
  private busy = false;
  done = false;
  /** After a failed close (network, exchange), no new attempt before this time. */
  private retryAtMs = 0;
  private retryDelayMs = RETRY_MIN_MS;

  private constructor(
    private readonly opts: StandaloneGuardOptions,
    guard: DslGuardFile,
  ) {
    this.guard = guard;
  }

  static async open(opts: StandaloneGuardOptions): Promise<StandaloneGuard> {
    let held = opts.given;
    if (!held) {
      const pos = (await opts.port.positions()).find((p) => p.coin === opts.coin && !dec(p.szi).isZero());
      if (!pos) throw new UserError(`no open ${opts.port.instrumentOf(opts.coin)} position to guard`);
      held = {
        entry: Number(pos.entryPx),
        size: wire(dec(pos.szi).abs()),
        direction: dec(pos.szi).gt(0) ? "long" : "short",
      };
    }
    const { direction, entry } = held;
    // A restart resumes the open guard of the same position (same side and entry): the ratchet survives.
    const instrument = opts.port.instrumentOf(opts.coin);
    const saved = listGuards(opts.dir).guards.find(
      (g) =>
        !g.state.closed &&
        g.state.instrument === instrument &&
        g.config.direction === direction &&
        g.state.entry_price === entry,
    );
    if (saved) {
      opts.log?.(`resuming the saved guard ${saved.state.position_id}`);
      return new StandaloneGuard(opts, saved);
    }
    const floor =
      opts.autoFloor === false
        ? 0
        : entry * (direction === "long" ? 1 - 0.03 / opts.leverage : 1 + 0.03 / opts.leverage);
    const config: DslConfig = dslConfigFromPreset(opts.preset, {
      direction,
      leverage: opts.leverage,
      phase1_absolute_floor: floor,
    });
    const now = opts.port.now();
    const state = newDslState({
      position_id: `${opts.coin.replace(":", "_")}-${now}`,
      instrument: opts.port.instrumentOf(opts.coin),
      entry_price: entry,
      position_size: held.size,
      nowMs: now,
    });
    const guard = { state, config };
    saveGuard(opts.dir, guard);
    return new StandaloneGuard(opts, guard);
  }

  /**
   * Evaluate one price; on a close verdict, send the close (at most one in flight). Never rejects: a
   * failed close (or a failed save) is logged, alerted and retried with back-off on a later price, so
   * the position stays guarded.
   */
  async onPrice(price: number): Promise<DslResult | undefined> {
    if (this.done || this.busy) return undefined;
    this.busy = true;
    try {
      const now = this.opts.port.now();
      const r = evaluateDsl(this.guard.config, this.guard.state, price, now);
      this.guard = { ...this.guard, state: r.state };
      saveGuard(this.opts.dir, this.guard);
      if (r.action === "close" && now >= this.retryAtMs) {
        await this.close(r.reason, price);
        this.retryDelayMs = RETRY_MIN_MS;
      }
      return r;
    } catch (err) {
      const now = this.opts.port.now();
      this.retryAtMs = now + this.retryDelayMs;
      const text = `guard of ${this.guard.state.instrument}: ${err instanceof Error ? err.message : String(err)}; retrying in ${Math.round(this.retryDelayMs / 1000)} s`;
      this.retryDelayMs = Math.min(RETRY_MAX_MS, this.retryDelayMs * 2);
      this.opts.log?.(text);
      this.opts.alert?.(text);
      return undefined;
    } finally {
      this.busy = false;
    }
  }

  private async close(reason: string, price: number): Promise<void> {
    const { port, coin } = this.opts;
    if (this.opts.dryRun) {
      this.opts.log?.(
        `dry run: would close ${this.guard.state.position_size} at ${price} (${reason}); no order sent`,
      );
      this.finish(price, reason);
      return;
    }
    const pos = (await port.positions()).find((p) => p.coin === coin);
    const open = pos ? dec(pos.szi) : dec(0);
    if (!open.isZero()) {
      const res = await port.ioc({
        coin,
        side: open.gt(0) ? "sell" : "buy",
        size: wire(open.abs()),
        slippage: this.opts.slippage ?? 0.01,
        reduceOnly: true,
        cloid: `0x${randomBytes(16).toString("hex")}`,
      });
      this.opts.log?.(
        res.status === "filled"
          ? `close filled ${res.size} @ ${res.price}`
          : `close not filled: ${res.message}`,
      );
      if (res.status !== "filled" || dec(res.size).lt(open.abs())) return; // retried on the next price
    }
    this.finish(price, reason);
  }

  private finish(price: number, reason: string): void {
    this.guard = {
      ...this.guard,
      state: markDslClosed(this.guard.state, price, reason, this.opts.port.now()),
    };
    saveGuard(this.opts.dir, this.guard);
    this.done = true;
    this.opts.log?.(`guard closed: ${reason}`);
  }
}

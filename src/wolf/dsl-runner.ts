import { randomBytes } from "node:crypto";
import { D, dec, wire } from "../core/decimal.ts";
import { UserError } from "../core/errors.ts";
import type { Rejection } from "../exchange/rejections.ts";
import { type BackstopSettings, DEFAULT_BACKSTOP } from "../guard/backstop.ts";
import { type BackstopPort, Backstops, type Guarded } from "../guard/backstops.ts";
import { type DslConfig, dslConfigFromPreset } from "../guard/config.ts";
import { type DslResult, dslFloor, evaluateDsl, markDslClosed, newDslState } from "../guard/dsl.ts";
import { closeRetryDelayMs } from "../guard/retry.ts";
import { type DslGuardFile, listGuards, saveGuard } from "../guard/store.ts";
import type { WolfPort } from "./port.ts";

/** A close the exchange did not fill, with its refusal when it refused it. */
class CloseNotFilled extends Error {
  constructor(
    message: string,
    readonly refusal: Rejection | undefined,
  ) {
    super(`close not filled: ${message}`);
  }
}

/**
 * `hl dsl start`: guard one existing exchange position with a DSL trailing stop, outside WOLF. Every
 * streamed mid (and a poll each tick) is evaluated; a close sends a reduce-only IOC for what is
 * still open, and the guard is marked closed only when the exchange shows the position flat.
 */
interface StandaloneGuardOptions {
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
  /**
   * Keep a reduce-only stop resting on the exchange beyond the guard's floor (never with `dryRun`),
   * so the position stays protected while this process is not running.
   */
  backstops?: BackstopPort;
  backstopSettings?: BackstopSettings;
}

interface GivenEntry {
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

export class StandaloneGuard {
  guard: DslGuardFile;
  private busy = false;
  done = false;
  /** After a failed or refused close, no new attempt before this time (port clock). */
  private retryAtMs = 0;
  /** Close attempts in a row that filled nothing (0 = none failing). */
  private failedAttempts = 0;
  /** The exchange stop's keeper (none in a dry run or without a port for it). */
  readonly backstops: Backstops | undefined;

  private constructor(
    private readonly opts: StandaloneGuardOptions,
    guard: DslGuardFile,
  ) {
    this.guard = guard;
    const port = opts.backstops;
    const alert = opts.alert;
    this.backstops =
      port && !opts.dryRun
        ? new Backstops({
            port,
            owner: "dsl",
            settings: () => opts.backstopSettings ?? DEFAULT_BACKSTOP,
            now: () => opts.port.now(),
            log: opts.log ?? (() => undefined),
            ...(alert ? { alert: (t: string) => alert(`hl dsl start: ${t}`) } : {}),
          })
        : undefined;
  }

  /** What the exchange stop covers: the guarded side and size, beyond the guard's floor. */
  private guarded(): Guarded {
    const { state, config } = this.guard;
    return {
      key: state.position_id,
      coin: this.opts.coin,
      side: config.direction,
      size: state.position_size,
      stops: [dslFloor(config, state)],
    };
  }

  /**
   * On start: exactly one exchange stop for this guard (adopted by its cloid, or placed), and none
   * left over from a guard of this dir that has closed; stops of other open guards are left alone.
   */
  async reconcileBackstop(): Promise<void> {
    if (!this.backstops) return;
    const others = listGuards(this.opts.dir)
      .guards.filter((g) => !g.state.closed && g.state.position_id !== this.guard.state.position_id)
      .map((g) => g.state.position_id);
    try {
      const { states } = await this.backstops.reconcile([this.guarded()], () => this.guard.backstop, others);
      const next = states.get(this.guard.state.position_id);
      if (next) this.recordBackstop(next);
    } catch (err) {
      this.opts.log?.(`backstop not reconciled: ${(err as Error).message}`);
    }
  }

  /** Place, ratchet or resize the exchange stop (in the background; the keeper decides if it is worth it). */
  private syncBackstop(): void {
    const keeper = this.backstops;
    if (!keeper || this.done) return;
    void keeper.sync(this.guarded(), this.guard.backstop).then((next) => {
      if (next && !this.done) this.recordBackstop(next);
    });
  }

  private recordBackstop(next: NonNullable<DslGuardFile["backstop"]>): void {
    this.guard = { ...this.guard, backstop: next };
    saveGuard(this.opts.dir, this.guard);
  }

  /** A guard with its exchange stop reconciled (placed, or found again after a restart). */
  private static async ready(opts: StandaloneGuardOptions, file: DslGuardFile): Promise<StandaloneGuard> {
    const g = new StandaloneGuard(opts, file);
    await g.reconcileBackstop();
    return g;
  }

  /** Wait for exchange-stop work in flight. */
  async settled(): Promise<void> {
    await this.backstops?.settled();
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
      return StandaloneGuard.ready(opts, saved);
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
    return StandaloneGuard.ready(opts, guard);
  }

  /**
   * Evaluate one price; on a close verdict, send the close (at most one in flight). Never rejects: a
   * failed or refused close (or a failed save) is logged, alerted once per failing streak, and tried
   * again on a later price after a short back-off (250 ms doubling to 1 s), so the position stays
   * guarded without hammering the exchange.
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
        this.failedAttempts = 0;
        this.retryAtMs = 0;
      } else if (r.action !== "close") this.syncBackstop();
      return r;
    } catch (err) {
      this.failedAttempts += 1;
      const refusal = err instanceof CloseNotFilled ? err.refusal : undefined;
      const delay = closeRetryDelayMs(this.failedAttempts, refusal);
      this.retryAtMs = this.opts.port.now() + delay;
      const instrument = this.guard.state.instrument;
      const text =
        refusal?.reason === "market_halted"
          ? `the exchange has halted trading in ${instrument} (${refusal.message}): the position cannot be closed while it lasts; still guarded, its close is tried once a minute`
          : `guard of ${instrument}: ${err instanceof Error ? err.message : String(err)}; retrying in ${delay} ms`;
      this.opts.log?.(text);
      if (this.failedAttempts === 1) this.opts.alert?.(text);
      return undefined;
    } finally {
      this.busy = false;
    }
  }

  /**
   * Close the guarded position: only its side, and at most its size (the account may hold more of
   * the coin than this guard was given). Throws when the close did not fill, so the caller backs off.
   */
  private async close(reason: string, price: number): Promise<void> {
    const { port, coin } = this.opts;
    const guarded = dec(this.guard.state.position_size);
    const direction = this.guard.config.direction;
    if (this.opts.dryRun) {
      this.opts.log?.(
        `dry run: would close ${this.guard.state.position_size} at ${price} (${reason}); no order sent`,
      );
      this.finish(price, reason);
      return;
    }
    const pos = (await port.positions()).find((p) => p.coin === coin);
    const szi = pos ? dec(pos.szi) : dec(0);
    const onGuardedSide = direction === "long" ? szi.gt(0) : szi.lt(0);
    if (!onGuardedSide) {
      this.opts.log?.(
        `no ${direction} ${port.instrumentOf(coin)} position on the exchange (${wire(szi)}): the guarded position is already gone`,
      );
      this.finish(price, `${reason} (position already gone)`);
      return;
    }
    const size = D.min(szi.abs(), guarded);
    const res = await port.ioc({
      coin,
      side: direction === "long" ? "sell" : "buy",
      size: wire(size),
      slippage: this.opts.slippage ?? 0.01,
      reduceOnly: true,
      cloid: `0x${randomBytes(16).toString("hex")}`,
    });
    if (res.status !== "filled")
      throw new CloseNotFilled(res.message, res.status === "unfilled" ? res.rejection : undefined);
    this.opts.log?.(`close filled ${res.size} @ ${res.price}`);
    const left = guarded.minus(res.size);
    if (left.gt(0)) {
      // Part of it: what is left stays guarded (its exchange stop shrinks), and the next price closes it.
      this.guard = { ...this.guard, state: { ...this.guard.state, position_size: wire(left) } };
      saveGuard(this.opts.dir, this.guard);
      this.syncBackstop();
      return;
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
    const keeper = this.backstops;
    if (keeper && this.guard.backstop && this.guard.backstop.status !== "none")
      void keeper
        .cancel(this.guard.state.position_id, this.opts.coin)
        .then((none) => this.recordBackstop(none));
  }
}

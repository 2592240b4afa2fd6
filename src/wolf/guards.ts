import { dslConfigFromPreset } from "../guard/config.ts";
import { type DslResult, evaluateDsl, markDslClosed, newDslState } from "../guard/dsl.ts";
import { type DslGuardFile, loadGuard, saveGuard } from "../guard/store.ts";
import type { WolfConfig } from "./config.ts";
import type { Slot } from "./state.ts";

/**
 * One DSL guard per open slot, persisted under `wolf/dsl/<position_id>.json`. Each position gets its
 * own id (slot + open time), the file is written the moment the position opens, and a slot whose
 * guard file is missing or unreadable gets a new guard instead of running unguarded.
 */
export class SlotGuards {
  private guards = new Map<number, DslGuardFile>();

  constructor(
    private readonly dir: string,
    private readonly cfg: WolfConfig,
    private readonly log: (line: string) => void,
  ) {}

  static positionId(slot: Slot): string {
    return `wolf-${slot.slot_id}-${slot.opened_at_ms}`;
  }

  /** The preset and leverage a new position's guard is opened with (kept in the slot for a rebuild). */
  openedWith(slot: Slot): Pick<Slot, "dsl_preset" | "dsl_leverage"> {
    return { dsl_preset: this.cfg.dsl_preset, dsl_leverage: this.cfg.dsl_leverage_override ?? slot.leverage };
  }

  private build(slot: Slot, nowMs: number): DslGuardFile {
    // A position keeps the preset and leverage it was opened with, whatever the config says today.
    const config = dslConfigFromPreset(slot.dsl_preset ?? this.cfg.dsl_preset, {
      direction: slot.side === "short" ? "short" : "long",
      leverage: slot.dsl_leverage ?? this.cfg.dsl_leverage_override ?? slot.leverage,
      breach_interval_ms: this.cfg.dsl_breach_interval_ms,
    });
    const state = newDslState({
      position_id: slot.dsl_position_id || SlotGuards.positionId(slot),
      instrument: slot.instrument,
      entry_price: Number(slot.entry_price),
      position_size: slot.entry_size,
      nowMs,
    });
    return { state, config };
  }

  /** A fresh guard for a just-opened position, saved at once. */
  create(slot: Slot, nowMs: number): DslGuardFile {
    const g = this.build(slot, nowMs);
    saveGuard(this.dir, g);
    this.guards.set(slot.slot_id, g);
    return g;
  }

  /** Whether the slot's guard survives on disk (its file or its last-good copy), still open. */
  survives(slot: Slot): boolean {
    if (!slot.dsl_position_id) return false;
    const r = loadGuard(this.dir, slot.dsl_position_id);
    return r.kind === "ok" && !r.guard.state.closed;
  }

  /**
   * Restore the guard of an open slot after a restart (from its file, else its last-good copy). When
   * neither survives, the stop is rebuilt conservatively: the high water is the best of the entry, the
   * slot's saved high-water ROE and `pricesSince` (prices recorded since the entry), the tier never
   * below the slot's saved one and the breach count as last saved, so the floor is never looser and
   * the count never starts over.
   */
  restore(slot: Slot, nowMs: number, pricesSince: readonly number[] = []): DslGuardFile {
    const r = slot.dsl_position_id
      ? loadGuard(this.dir, slot.dsl_position_id)
      : ({ kind: "missing" } as const);
    if (r.kind === "ok" && !r.guard.state.closed) {
      this.guards.set(slot.slot_id, r.guard);
      return r.guard;
    }
    const g = this.build(slot, nowMs);
    const long = g.config.direction === "long";
    const entry = g.state.entry_price;
    const fromRoe = entry * (1 + ((long ? 1 : -1) * slot.high_water_roe) / 100 / g.config.leverage);
    const best = [entry, fromRoe, ...pricesSince].filter((p) => p > 0);
    g.state.high_water = long ? Math.max(...best) : Math.min(...best);
    g.state.tier_index = Math.max(g.state.tier_index, slot.dsl_tier);
    g.state.breach_count = slot.dsl_breaches ?? 0;
    g.state.breach_ts = g.state.breach_count > 0 ? nowMs : 0;
    this.log(
      `slot ${slot.slot_id} (${slot.instrument}): DSL guard ${r.kind === "corrupt" ? "file corrupt" : "missing"}, rebuilt from the entry and the saved ratchet (high water ${g.state.high_water}, tier ${g.state.tier_index})`,
    );
    saveGuard(this.dir, g);
    this.guards.set(slot.slot_id, g);
    return g;
  }

  get(slotId: number): DslGuardFile | undefined {
    return this.guards.get(slotId);
  }

  /**
   * Evaluate one price; the file is rewritten at once when the tier or breach count changed, unless
   * `deferSave` (the caller then calls `persist` — e.g. after a close order has gone out, so the disk
   * write is not in its way).
   */
  evaluate(
    slotId: number,
    price: number,
    nowMs: number,
    opts: { deferSave?: boolean } = {},
  ): (DslResult & { changed: boolean }) | undefined {
    const g = this.guards.get(slotId);
    if (!g) return undefined;
    const r = evaluateDsl(g.config, g.state, price, nowMs);
    const prev = g.state;
    g.state = r.state;
    const changed =
      r.action !== "hold" ||
      prev.tier_index !== r.state.tier_index ||
      prev.breach_count !== r.state.breach_count;
    if (changed && !opts.deferSave) saveGuard(this.dir, g);
    return { ...r, changed };
  }

  /** Write one guard's current state to disk. */
  persist(slotId: number): void {
    const g = this.guards.get(slotId);
    if (g) saveGuard(this.dir, g);
  }

  /** Persist every guard (once per tick: keeps the high water current on disk without a write per price). */
  persistAll(): void {
    for (const g of this.guards.values()) saveGuard(this.dir, g);
  }

  /** The guarded position is confirmed closed: persist and forget the guard. */
  close(slotId: number, price: number, reason: string, nowMs: number): void {
    const g = this.guards.get(slotId);
    if (!g) return;
    saveGuard(this.dir, { ...g, state: markDslClosed(g.state, price, reason, nowMs) });
    this.guards.delete(slotId);
  }
}

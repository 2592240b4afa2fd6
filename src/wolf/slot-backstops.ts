import type { Alerter } from "../alerts/webhook.ts";
import { wire } from "../core/decimal.ts";
import type { BackstopSettings } from "../guard/backstop.ts";
import { type BackstopPort, type BackstopState, Backstops, type Guarded } from "../guard/backstops.ts";
import { dslFloor, priceAtRoe } from "../guard/dsl.ts";
import { remainingSize } from "./accounting.ts";
import type { WolfConfig } from "./config.ts";
import type { SlotGuards } from "./guards.ts";
import type { SlotBook } from "./protector.ts";
import type { Slot } from "./state.ts";

function backstopSettings(cfg: WolfConfig): BackstopSettings {
  return {
    enabled: cfg.backstop_enabled,
    margin_pct: cfg.backstop_margin_pct,
    min_move_ticks: cfg.backstop_min_move_ticks,
    min_interval_s: cfg.backstop_min_interval_s,
  };
}

const isOpen = (s: Slot) => s.status === "active" || s.status === "closing";

/**
 * WOLF's exchange backstops: every open slot keeps a reduce-only stop resting on the exchange,
 * beyond the tighter of its hard stop and its DSL floor (src/guard/backstops.ts does the work). Each
 * change of a slot's backstop is written to the slot (`backstop` in state.json) and saved.
 */
export class SlotBackstops {
  readonly keeper: Backstops;

  constructor(
    private readonly o: {
      port: BackstopPort;
      book: SlotBook;
      guards: SlotGuards;
      config: WolfConfig;
      now: () => number;
      log: (line: string) => void;
      alerter?: Alerter;
    },
  ) {
    const alerter = o.alerter;
    this.keeper = new Backstops({
      port: o.port,
      owner: "wolf",
      settings: () => backstopSettings(o.config),
      now: o.now,
      log: o.log,
      live: () => o.book.state.slots.filter(isOpen).map((s) => s.dsl_position_id),
      ...(alerter ? { alert: (text: string) => alerter.send("backstop", `WOLF ${text}`) } : {}),
    });
  }

  /** What the backstop of an open slot must cover: its remaining size, its hard stop and floor. */
  guarded(slot: Slot): Guarded | undefined {
    if (!isOpen(slot) || slot.side === "" || !slot.dsl_position_id) return undefined;
    const entry = Number(slot.entry_price);
    if (!(entry > 0)) return undefined;
    const size = remainingSize(slot);
    if (size.lte(0)) return undefined;
    const stops = [priceAtRoe(slot.side, entry, this.o.config.max_negative_roe, slot.leverage)];
    const g = this.o.guards.get(slot.slot_id);
    if (g) stops.push(dslFloor(g.config, g.state));
    return { key: slot.dsl_position_id, coin: slot.coin, side: slot.side, size: wire(size), stops };
  }

  /** Bring one slot's backstop up to date (placed, ratcheted, resized); in the background. */
  sync(slotId: number): Promise<void> {
    const slot = this.o.book.state.slots[slotId];
    const g = slot && this.guarded(slot);
    if (!g) return Promise.resolve();
    return this.keeper.sync(g, slot.backstop).then((next) => this.record(slotId, g.key, next));
  }

  /** Write a new backstop state to the slot, if it still holds the same position. */
  private record(slotId: number, key: string, next: BackstopState | undefined): void {
    if (!next) return;
    const now = this.o.book.state.slots[slotId];
    if (!now || now.dsl_position_id !== key || !isOpen(now)) return;
    this.o.book.state.slots[slotId] = { ...now, backstop: next };
    this.o.book.save();
  }

  /** The slot's position is closed: its backstop goes too (in the background). */
  cancel(slot: Slot): Promise<void> {
    if (!slot.dsl_position_id || !slot.backstop || slot.backstop.status === "none") return Promise.resolve();
    return this.keeper.cancel(slot.dsl_position_id, slot.coin).then(() => undefined);
  }

  /**
   * Exactly one backstop per open slot and no orphan: run at start (after the slots are reconciled
   * with the positions) and with each periodic reconciliation.
   */
  async reconcile(): Promise<void> {
    const slots = this.o.book.state.slots;
    const guarded = slots.flatMap((s) => {
      const g = this.guarded(s);
      return g ? [{ slotId: s.slot_id, g }] : [];
    });
    try {
      const { states } = await this.keeper.reconcile(
        guarded.map((x) => x.g),
        (key) => this.o.book.state.slots.find((s) => s.dsl_position_id === key)?.backstop,
      );
      for (const { slotId, g } of guarded) {
        const st = states.get(g.key);
        if (st) this.record(slotId, g.key, st);
      }
    } catch (err) {
      this.o.log(`backstops not reconciled: ${(err as Error).message}`);
    }
  }

  settled(): Promise<void> {
    return this.keeper.settled();
  }
}

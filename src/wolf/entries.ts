import type { Alerter } from "../alerts/webhook.ts";
import { D, dec, wire } from "../core/decimal.ts";
import { CoinCooldowns } from "../exchange/rejections.ts";
import { entrySize } from "./accounting.ts";
import type { WolfConfig } from "./config.ts";
import type { EntryPlan } from "./engine.ts";
import { SlotGuards } from "./guards.ts";
import { newCloid } from "./ids.ts";
import type { IocResult, UnresolvedOrder, WolfPort } from "./port.ts";
import type { Protector, SlotBook } from "./protector.ts";
import type { SlotBackstops } from "./slot-backstops.ts";
import { emptySlot, type Slot } from "./state.ts";

interface EntriesOptions {
  port: WolfPort;
  /** The live config object (a review may retune it in place). */
  config: WolfConfig;
  book: SlotBook;
  guards: SlotGuards;
  protector: Protector;
  backstops?: SlotBackstops;
  log: (line: string) => void;
  alerter?: Alerter;
}

/**
 * WOLF's entries: one IOC per plan, written ahead as a pending slot so a lost answer (or a kill while
 * it is in flight) is resolved by cloid rather than sent twice; a fill activates the slot, guards it
 * and places its exchange backstop at once; a refusal is acted on by its reason.
 */
export class Entries {
  /** Coins left alone after a refusal that will not go away at once. */
  private readonly cooldowns = new CoinCooldowns();
  /** Pending entries being resolved, by slot. */
  private readonly resolving = new Map<number, Promise<void>>();

  constructor(private readonly o: EntriesOptions) {}

  /** Why no entry can succeed this run (a refusal), kept in the state so the dashboard shows it. */
  get stopped(): string | undefined {
    return this.o.book.state.entries_halted;
  }

  private slot(id: number): Slot {
    return this.o.book.state.slots[id]!;
  }

  private setSlot(slot: Slot): void {
    this.o.book.state.slots[slot.slot_id] = slot;
  }

  /** Whether a refusal keeps `coin` out for now. */
  blocking(coin: string, nowMs: number): boolean {
    return this.cooldowns.blocking(coin, nowMs) !== undefined;
  }

  /** Wait for the entry resolutions in flight. */
  async settled(): Promise<void> {
    while (this.resolving.size > 0) await Promise.allSettled([...this.resolving.values()]);
  }

  /** Open a position for an entry plan with one IOC at a marketable limit; the slot fills only on a fill. */
  async enter(e: EntryPlan): Promise<void> {
    const port = this.o.port;
    const cfg = this.o.config;
    if (this.slot(e.slot_id).status !== "empty") return;
    const holder = this.o.book.state.slots.find((s) => s.status !== "empty" && s.coin === e.coin);
    if (holder) {
      this.o.log(`entry ${e.coin} skipped: slot ${holder.slot_id} holds it (${holder.status})`);
      return;
    }
    try {
      const info = await port.marketInfo(e.coin);
      const leverage = Math.max(1, Math.floor(Math.min(cfg.leverage, info.maxLeverage)));
      const mid = Number((await port.mids())[e.coin] ?? 0);
      const size = entrySize(cfg.margin_per_slot, leverage, mid, info.szDecimals, cfg.min_order_usd);
      if (!size) {
        this.o.log(`skip ${info.instrument}: no price or size below the minimum order`);
        return;
      }
      await port
        .setLeverage(e.coin, leverage)
        .catch((err) => this.o.log(`leverage ${info.instrument}: ${(err as Error).message}`));
      const side = e.direction === "long" ? "buy" : "sell";
      // What the slot will hold once the order is known to have filled.
      const base: Slot = {
        ...emptySlot(e.slot_id),
        instrument: info.instrument,
        coin: e.coin,
        side: e.direction,
        entry_source: e.source,
        entry_signal_score: e.score,
        margin_allocated: wire(dec(cfg.margin_per_slot)),
        leverage,
      };
      // Write-ahead: the slot is saved pending with the order before it goes out, so a process killed
      // while it is in flight resolves it by cloid on restart (keeping its signal source).
      const send = (orderSize: string, cloid: `0x${string}`) =>
        port.ioc({
          coin: e.coin,
          side,
          size: orderSize,
          slippage: cfg.entry_slippage,
          reduceOnly: false,
          cloid,
          onSending: (order) => {
            this.setSlot({ ...base, status: "pending", pending_order: order });
            this.o.book.save();
          },
        });
      let cloid = newCloid();
      let res: IocResult;
      try {
        res = await send(size, cloid);
        if (res.status === "unfilled" && res.rejection?.reaction === "shrink") {
          // Too large for the margin or the margin tier: one smaller order, not the same one again.
          const half = halfSize(size, info.szDecimals, mid, cfg.min_order_usd);
          this.o.log(
            `entry ${info.instrument} refused (${res.rejection.reason}); ${half ? `trying ${half}` : "too small to shrink"}`,
          );
          if (half) {
            cloid = newCloid();
            res = await send(half, cloid);
          }
        }
      } catch (err) {
        if (this.slot(e.slot_id).pending_order?.cloid !== cloid) throw err;
        // Sent (or about to be) without a definite answer: the exchange is asked rather than guessed.
        this.o.log(
          `entry ${info.instrument} ${e.direction}: ${(err as Error).message}; slot ${e.slot_id} stays pending until the exchange says what became of it`,
        );
        void this.resolvePending(e.slot_id);
        return;
      }
      if (res.status === "unknown") {
        this.setSlot({ ...base, status: "pending", pending_order: res.unresolved });
        this.o.book.save();
        this.o.log(
          `entry ${info.instrument} ${e.direction}: outcome unknown (${res.message}); slot ${e.slot_id} pending, nothing else goes out for ${e.coin} until the exchange says what became of it`,
        );
        void this.resolvePending(e.slot_id);
        return;
      }
      if (res.status !== "filled") {
        if (this.slot(e.slot_id).status === "pending") {
          this.setSlot(emptySlot(e.slot_id));
          this.o.book.save();
        }
        this.onEntryRefused(info.instrument, e, res);
        return;
      }
      this.activate(base, res, cloid, e.reason);
    } catch (err) {
      this.o.log(`entry ${e.coin} failed: ${(err as Error).message}`);
    }
  }

  /**
   * An entry that did not fill. A refusal is acted on by its reason (never by sending the same order
   * again): retry on the next tick's fresh plan, leave the coin alone for a while, or stop entering.
   */
  private onEntryRefused(
    instrument: string,
    e: EntryPlan,
    res: Extract<IocResult, { status: "unfilled" }>,
  ): void {
    const rejection = res.rejection;
    if (!rejection) {
      this.o.log(`entry ${instrument} ${e.direction} not filled: ${res.message}`);
      return;
    }
    const what = `entry ${instrument} ${e.direction} refused (${rejection.reason}: ${res.message})`;
    switch (rejection.reaction) {
      case "retry_next_tick":
        this.o.log(`${what}; the next tick may try again`);
        return;
      case "shrink":
      case "skip_coin": {
        const skip =
          rejection.reaction === "skip_coin"
            ? rejection
            : { ...rejection, reaction: "skip_coin" as const, cooldownMs: 60_000 };
        this.cooldowns.note(e.coin, skip, this.o.port.now());
        this.o.log(`${what}; ${e.coin} is left alone for ${Math.round(skip.cooldownMs / 1000)} s`);
        return;
      }
      case "stop":
        this.o.book.state.entries_halted = what;
        this.o.log(`${what}; no more entries this run (open slots stay guarded)`);
        this.o.alerter?.send("halt", `WOLF ${what}: no more entries this run; open slots stay guarded`);
        return;
    }
  }

  /** A confirmed entry fill: the slot goes active with the fill's size and price, guarded from now on. */
  private activate(
    base: Slot,
    fill: Extract<IocResult, { status: "filled" }>,
    cloid: string,
    why: string,
  ): void {
    const now = this.o.port.now();
    const slot: Slot = {
      ...base,
      status: "active",
      entry_price: fill.price,
      entry_size: fill.size,
      entry_fee: fill.fee,
      current_price: fill.price,
      dsl_phase: 1,
      dsl_tier: -1,
      opened_at_ms: now,
      last_progress_ms: now,
      last_signal_seen_ms: now,
      pending_order: null,
    };
    slot.dsl_position_id = SlotGuards.positionId(slot);
    Object.assign(slot, this.o.guards.openedWith(slot));
    this.setSlot(slot);
    this.o.guards.create(slot, now);
    // The exchange stop goes out at once, before the bookkeeping.
    void this.o.backstops?.sync(slot.slot_id);
    const side = slot.side === "long" ? "buy" : "sell";
    this.o.protector.recordTrade(
      slot,
      side,
      fill.oid,
      fill.price,
      fill.size,
      fill.fee,
      `entry:${slot.entry_source}`,
      cloid,
      now,
    );
    this.o.book.save();
    const opened = `opened slot ${slot.slot_id}: ${slot.instrument} ${slot.side} ${fill.size} @ ${fill.price} (${why})`;
    this.o.log(opened);
    this.o.alerter?.send("entry", `WOLF ${opened}`, { instrument: slot.instrument });
  }

  /**
   * Ask the exchange what became of a pending slot's entry (once at a time per slot): filled → the
   * slot adopts the position; not executed → the slot is free again; cannot tell yet → asked again
   * on the next tick. Until then the slot's coin is held: nothing else is sent for it.
   */
  resolvePending(slotId: number): Promise<void> {
    const running = this.resolving.get(slotId);
    if (running) return running;
    const slot = this.slot(slotId);
    const order = slot.pending_order;
    if (slot.status !== "pending" || !order) return Promise.resolve();
    const run = this.o.port
      .resolveIoc(order as UnresolvedOrder)
      .then(
        (res) => {
          const now = this.slot(slotId);
          if (now.status !== "pending" || now.pending_order?.cloid !== order.cloid) return;
          if (res.status === "filled") {
            this.activate(now, res, order.cloid, "entry resolved after its answer was lost");
            return;
          }
          this.setSlot(emptySlot(slotId));
          this.o.book.save();
          this.o.log(`entry ${now.instrument}: not executed (${res.message}); slot ${slotId} is free again`);
        },
        (err: unknown) =>
          this.o.log(
            `entry ${slot.instrument}: outcome still unknown (${(err as Error).message}); asking again next tick`,
          ),
      )
      .finally(() => this.resolving.delete(slotId));
    this.resolving.set(slotId, run);
    return run;
  }
}

/** Half an order's size, rounded down to the asset's size step; undefined below the minimum order. */
function halfSize(size: string, szDecimals: number, mid: number, minOrderUsd: number): string | undefined {
  const half = dec(size).div(2).toDecimalPlaces(szDecimals, D.ROUND_DOWN);
  return half.gt(0) && half.times(mid).gte(minOrderUsd) ? wire(half) : undefined;
}

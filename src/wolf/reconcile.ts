import { dec, wire } from "../core/decimal.ts";
import { remainingSize } from "./accounting.ts";
import type { WolfConfig } from "./config.ts";
import { SlotGuards } from "./guards.ts";
import type { ExchangePosition, WolfPort } from "./port.ts";
import type { Protector, SlotBook } from "./protector.ts";
import type { SlotBackstops } from "./slot-backstops.ts";
import { emptySlot, type Slot } from "./state.ts";

interface ReconcileOptions {
  port: WolfPort;
  config: WolfConfig;
  book: SlotBook;
  guards: SlotGuards;
  protector: Protector;
  backstops?: SlotBackstops;
  log: (line: string) => void;
}

const isOpen = (s: Slot) => s.status === "active" || s.status === "closing";

/**
 * Make the slots agree with the exchange: a slot whose position is gone is closed from its fills; a
 * size that differs is adopted; an exchange position no slot knows is adopted into a free slot
 * (guarded from then on) or reported. Runs at start-up, before any entry, and every few ticks.
 */
export async function reconcileSlots(o: ReconcileOptions): Promise<void> {
  const setSlot = (slot: Slot) => {
    o.book.state.slots[slot.slot_id] = slot;
  };
  let positions: ExchangePosition[];
  try {
    positions = await o.port.positions();
  } catch (e) {
    o.log(`reconcile skipped: ${(e as Error).message}`);
    return;
  }
  const now = o.port.now();
  const byCoin = new Map(positions.filter((p) => !dec(p.szi).isZero()).map((p) => [p.coin, p]));
  for (const s of o.book.state.slots) {
    if (!isOpen(s)) continue;
    const p = byCoin.get(s.coin);
    byCoin.delete(s.coin);
    if (o.protector.closing(s.slot_id)) continue; // its close settles it
    const exSide = p ? (dec(p.szi).gt(0) ? "long" : "short") : undefined;
    if (!p || exSide !== s.side) {
      o.log(`reconcile: slot ${s.slot_id} ${s.instrument} has no ${s.side} position on the exchange`);
      await o.protector.settleGone(s.slot_id, "no position on the exchange");
      continue;
    }
    const size = dec(p.szi).abs();
    const expected = remainingSize(s);
    if (!size.eq(expected)) {
      o.log(`reconcile: slot ${s.slot_id} ${s.instrument} size ${wire(expected)} → exchange ${wire(size)}`);
      setSlot({ ...s, entry_size: wire(size.plus(s.exit?.filled_size ?? 0)) });
      void o.backstops?.sync(s.slot_id); // the exchange stop follows the size
    }
  }
  for (const p of byCoin.values()) {
    // A pending entry's position is adopted by its own resolution, with its fill's price.
    if (o.book.state.slots.some((s) => s.status !== "empty" && s.coin === p.coin)) continue;
    const free = o.book.state.slots.find((s) => s.status === "empty");
    const instrument = o.port.instrumentOf(p.coin);
    if (!free) {
      o.log(`reconcile: ${instrument} position ${p.szi} has no free slot; it is NOT managed by WOLF`);
      continue;
    }
    const info = await o.port.marketInfo(p.coin).catch(() => undefined);
    const leverage = Math.max(
      1,
      Math.floor(Math.min(o.config.leverage, info?.maxLeverage ?? o.config.leverage)),
    );
    const slot: Slot = {
      ...emptySlot(free.slot_id),
      status: "active",
      instrument,
      coin: p.coin,
      side: dec(p.szi).gt(0) ? "long" : "short",
      entry_source: "reconciled",
      entry_price: wire(dec(p.entryPx)),
      entry_size: wire(dec(p.szi).abs()),
      margin_allocated: wire(dec(p.szi).abs().times(p.entryPx).div(leverage)),
      leverage,
      current_price: wire(dec(p.entryPx)),
      dsl_phase: 1,
      opened_at_ms: now,
      last_progress_ms: now,
      last_signal_seen_ms: now,
    };
    slot.dsl_position_id = SlotGuards.positionId(slot);
    Object.assign(slot, o.guards.openedWith(slot));
    setSlot(slot);
    o.guards.create(slot, now);
    void o.backstops?.sync(slot.slot_id);
    o.log(
      `reconcile: adopted ${instrument} ${slot.side} ${slot.entry_size} @ ${slot.entry_price} into slot ${slot.slot_id}`,
    );
  }
}

import type { Alerter } from "../alerts/webhook.ts";
import { D, dec, wire } from "../core/decimal.ts";
import { closeRetryDelayMs } from "../guard/retry.ts";
import { addExitFill, closeRecord, remainingSize, startExit } from "./accounting.ts";
import type { WolfConfig } from "./config.ts";
import { dayLoss, priceExit, trackSlot } from "./engine.ts";
import type { SlotGuards } from "./guards.ts";
import { newCloid } from "./ids.ts";
import type { ExchangePosition, IocResult, WolfPort } from "./port.ts";
import { journalClosedSlot } from "./records.ts";
import type { SlotBackstops } from "./slot-backstops.ts";
import { emptySlot, type Slot, type WolfState } from "./state.ts";
import { appendTrade, readTrades } from "./trades.ts";

/** Where the protector reads and writes the slots (the runner's state, shared with the tick). */
export interface SlotBook {
  readonly state: WolfState;
  save(): void;
}

interface ProtectorOptions {
  port: WolfPort;
  dataDir: string;
  /** The live config object (a review may retune it in place). */
  config: WolfConfig;
  guards: SlotGuards;
  book: SlotBook;
  log: (line: string) => void;
  alerter?: Alerter;
  /** The exchange backstops of the slots (none: the client path alone protects them). */
  backstops?: SlotBackstops;
}

/** A mid younger than this prices a close directly; an older one is asked for again. */
const FRESH_MID_MS = 2_000;

const isOpen = (s: Slot) => s.status === "active" || s.status === "closing";

/**
 * WOLF's protective critical path: every exit that one price can decide (the DSL, the hard stop,
 * the time-based exits, the daily loss limit) is evaluated on each price, streamed or ticked, and
 * the close is sent at once. Nothing here waits for the tick or its scans: a slot's close runs on
 * its own, at most one at a time per slot, and the scans hold back while any close is in flight.
 * It needs no runner: slots (a SlotBook over state.json), a port to close through and prices given to
 * `onMids` are enough — src/wolf/guard-only.ts runs it that way, with no entries.
 */
export class Protector {
  private readonly inFlight = new Map<number, Promise<void>>();
  private idleWaiters: (() => void)[] = [];
  private readonly lastMids = new Map<string, { px: number; raw: string; atMs: number }>();
  /** Per closing slot: no new attempt before this time (port clock). */
  private readonly retryAt = new Map<number, number>();
  /** Closing slots whose market the exchange halted, already alerted (once per halt, not per try). */
  private readonly haltAlerted = new Set<number>();

  constructor(private readonly opts: ProtectorOptions) {}

  private get state(): WolfState {
    return this.opts.book.state;
  }

  private slot(id: number): Slot {
    return this.state.slots[id]!;
  }

  private setSlot(slot: Slot): void {
    this.state.slots[slot.slot_id] = slot;
  }

  /** True while a close of this slot is being sent or confirmed. */
  closing(slotId: number): boolean {
    return this.inFlight.has(slotId);
  }

  /** Resolves when no close is in flight (the scans wait here, so a close pre-empts them). */
  idle(): Promise<void> {
    if (this.inFlight.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Wait for every close in flight to settle. */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight.values()]);
  }

  /** Coins of the open slots: what the price feed must keep watching. */
  guardedCoins(): string[] {
    return this.state.slots.filter(isOpen).map((s) => s.coin);
  }

  /** One batch of prices (streamed, polled or ticked): track every open slot, run every exit rule. */
  onMids(mids: Record<string, string>): void {
    const now = this.opts.port.now();
    const cfg = this.opts.config;
    const wallNow = Date.now();
    for (const [coin, raw] of Object.entries(mids)) {
      const px = Number(raw);
      if (px > 0) this.lastMids.set(coin, { px, raw, atMs: wallNow });
    }
    for (const s of this.state.slots) {
      if (this.inFlight.has(s.slot_id)) continue;
      if (s.status === "closing") {
        // An unfinished close goes out again on every price once its short back-off has passed.
        if (now >= (this.retryAt.get(s.slot_id) ?? 0)) void this.exit(s.slot_id, s.exit?.reason ?? "retry");
        continue;
      }
      if (s.status !== "active") continue;
      const raw = mids[s.coin];
      if (raw === undefined) continue;
      const price = Number(raw);
      if (!(price > 0)) continue;
      const r = this.opts.guards.evaluate(s.slot_id, price, now, { deferSave: true });
      const tracked = trackSlot(s, price, now);
      const slot = r
        ? { ...tracked, dsl_phase: r.phase, dsl_tier: r.tier_index, dsl_breaches: r.state.breach_count }
        : tracked;
      this.setSlot(slot);
      const reason = priceExit(cfg, slot, now, r?.action === "close" ? r.reason : undefined);
      if (reason) {
        // The close goes out first; the log line and the guard's file follow once it is sent.
        const sent = this.exit(s.slot_id, reason);
        this.opts.log(`slot ${s.slot_id} ${s.instrument}: ${reason} at ${raw}; closing`);
        if (r?.changed) void sent.then(() => this.opts.guards.persist(s.slot_id));
      } else {
        if (r?.changed) this.opts.guards.persist(s.slot_id);
        // The exchange stop follows the floor (the keeper decides whether the move is worth a modify).
        void this.opts.backstops?.sync(s.slot_id);
      }
    }
    this.checkDailyLoss();
  }

  /** The day's realized plus unrealized PnL at the latest prices crossed the limit: close everything. */
  private checkDailyLoss(): void {
    const st = this.state;
    const open = st.slots.filter(isOpen);
    if (st.daily_loss_triggered || open.length === 0) return;
    const { dayPnl, unrealized } = dayLoss(st, open, (c) => this.lastMids.get(c)?.px);
    if (dayPnl.gt(-this.opts.config.daily_loss_limit)) return;
    this.tripDailyLoss(wire(unrealized));
  }

  /** Record the daily loss limit (once a day) and close every open slot (active or already closing). */
  tripDailyLoss(unrealized: string): void {
    const st = this.state;
    if (!st.daily_loss_triggered) {
      st.daily_loss_triggered = true;
      const line = `daily loss limit reached (realized ${st.daily_pnl}, unrealized ${unrealized}): closing all slots`;
      this.opts.log(line);
      this.opts.alerter?.send("daily_loss", `WOLF ${line}; no entries until the next UTC day`);
    }
    for (const s of st.slots) if (isOpen(s)) void this.exit(s.slot_id, "daily_loss_limit");
  }

  /**
   * Close a slot now, or join the close already in flight for it. Never rejects: a failed attempt
   * leaves the slot "closing", and the next price after a short back-off (≤ 1 s) tries again.
   */
  exit(slotId: number, reason: string): Promise<void> {
    return this.exclusive(slotId, () => this.exitSlot(slotId, reason));
  }

  /** Reconciliation found the slot's position gone: book it from the fills (unless a close is under way). */
  settleGone(slotId: number, note: string): Promise<void> {
    if (this.inFlight.has(slotId)) return Promise.resolve();
    return this.exclusive(slotId, async () => {
      const slot = this.slot(slotId);
      if (isOpen(slot)) await this.closeFromFills(slot, note);
    });
  }

  private exclusive(slotId: number, work: () => Promise<void>): Promise<void> {
    const running = this.inFlight.get(slotId);
    if (running) return running;
    const run = work()
      .catch((e) => {
        this.retryAt.set(
          slotId,
          this.opts.port.now() + closeRetryDelayMs(this.slot(slotId).exit?.attempts ?? 1),
        );
        this.opts.log(`slot ${slotId}: exit failed: ${(e as Error).message}`);
      })
      .finally(() => {
        this.inFlight.delete(slotId);
        this.opts.book.save();
        if (this.inFlight.size === 0) for (const w of this.idleWaiters.splice(0)) w();
      });
    this.inFlight.set(slotId, run);
    return run;
  }

  /**
   * Reduce-only IOC for what is still open. The slot is marked closed only once fills covering the
   * whole position are confirmed; a partial fill leaves it "closing" to be retried.
   */
  private async exitSlot(slotId: number, reason: string): Promise<void> {
    const port = this.opts.port;
    let slot = this.slot(slotId);
    if (!isOpen(slot)) return;
    if (!slot.exit) {
      slot = { ...slot, status: "closing", exit: startExit(reason, port.now()) };
      this.setSlot(slot);
    }
    const remaining = remainingSize(slot);
    if (remaining.lte(0)) {
      this.finalize(slot);
      return;
    }
    const side = slot.side === "long" ? "sell" : "buy";
    const cloid = newCloid();
    // The price that decided the exit prices the order too: no round trip for a mid first.
    const last = this.lastMids.get(slot.coin);
    const mid = last && Date.now() - last.atMs <= FRESH_MID_MS ? last.raw : undefined;
    let res: IocResult;
    try {
      res = await port.ioc({
        coin: slot.coin,
        side,
        size: wire(remaining),
        slippage: this.opts.config.exit_slippage,
        reduceOnly: true,
        cloid,
        ...(mid !== undefined ? { mid } : {}),
      });
    } catch (e) {
      res = { status: "unfilled", message: (e as Error).message };
    }
    if (res.status === "unknown") {
      // Its answer was lost: ask what it did before anything else (a retry is reduce-only anyway).
      const unresolved = res.unresolved;
      res = await port
        .resolveIoc(unresolved)
        .catch(
          (e): IocResult => ({ status: "unfilled", message: `outcome unknown: ${(e as Error).message}` }),
        );
    }
    // Re-read: the tick may have updated the slot's tracking while the order was out.
    slot = this.slot(slotId);
    const exit = { ...slot.exit!, attempts: slot.exit!.attempts + 1 };
    slot = { ...slot, exit };
    if (res.status === "filled") {
      this.retryAt.delete(slotId);
      this.haltAlerted.delete(slotId);
      slot = { ...slot, exit: addExitFill(exit, res.size, res.price, res.fee) };
      this.setSlot(slot);
      this.recordTrade(slot, side, res.oid, res.price, res.size, res.fee, exit.reason, cloid, port.now());
      if (remainingSize(slot).lte(0)) this.finalize(slot);
      else {
        this.opts.log(
          `slot ${slotId} ${slot.instrument}: partial exit ${res.size}, ${wire(remainingSize(slot))} left`,
        );
        void this.opts.backstops?.sync(slotId); // the exchange stop shrinks with the position
      }
      return;
    }
    this.setSlot(slot);
    const refusal = "rejection" in res ? res.rejection : undefined;
    this.retryAt.set(slotId, port.now() + closeRetryDelayMs(exit.attempts, refusal));
    const halted = refusal?.reason === "market_halted";
    if (!halted)
      this.opts.log(
        `slot ${slotId} ${slot.instrument}: exit not filled (${res.message}); checking the exchange`,
      );
    const pos = await this.exchangePosition(slot.coin);
    // A delisting halts the market and settles the position at once: nothing is left to close.
    if (pos !== undefined && dec(pos.szi).isZero())
      await this.closeFromFills(this.slot(slotId), "position already closed on the exchange");
    else if (halted) this.sayHalted(slot, res.message);
  }

  /** The close was refused because the exchange halted the market: the slot stays closing, said loudly once. */
  private sayHalted(slot: Slot, message: string): void {
    const line = `slot ${slot.slot_id} ${slot.instrument}: the exchange has halted trading (${message}); the position cannot be closed while it lasts, the slot stays closing and its close is tried once a minute`;
    this.opts.log(line);
    if (this.haltAlerted.has(slot.slot_id)) return;
    this.haltAlerted.add(slot.slot_id);
    this.opts.alerter?.send("halt", `WOLF ${line}`, { instrument: slot.instrument });
  }

  recordTrade(
    slot: Slot,
    side: "buy" | "sell",
    oid: string,
    price: string,
    quantity: string,
    fee: string,
    meta: string,
    cloid: string,
    now: number,
  ): void {
    appendTrade(this.opts.dataDir, {
      tick: this.state.tick_count,
      oid,
      instrument: slot.instrument,
      side,
      price,
      quantity,
      timestamp_ms: now,
      fee,
      strategy: "wolf",
      meta,
      slot_id: slot.slot_id,
      cloid,
    });
    this.state.total_trades += 1;
  }

  /** Record the close: PnL from confirmed fills, daily/total PnL, guard closed, slot emptied. */
  private finalize(slot: Slot): void {
    const now = this.opts.port.now();
    const exit = slot.exit!;
    this.retryAt.delete(slot.slot_id);
    this.haltAlerted.delete(slot.slot_id);
    const { record, pnl } = closeRecord(slot, exit, now);
    const st = this.state;
    st.closed_slots = [...st.closed_slots, record].slice(-this.opts.config.closed_history_size);
    st.daily_pnl = wire(dec(st.daily_pnl).plus(pnl));
    st.total_pnl = wire(dec(st.total_pnl).plus(pnl));
    if (dec(st.daily_pnl).lte(-this.opts.config.daily_loss_limit)) st.daily_loss_triggered = true;
    this.opts.guards.close(slot.slot_id, Number(record.exit_price), exit.reason, now);
    void this.opts.backstops?.cancel(slot);
    this.setSlot(emptySlot(slot.slot_id));
    journalClosedSlot(this.opts.dataDir, slot, record, this.opts.config.margin_per_slot, this.opts.log);
    const line = `closed slot ${slot.slot_id}: ${slot.instrument} ${slot.side} @ ${record.exit_price}, PnL ${record.realized_pnl} (${exit.reason})`;
    this.opts.log(line);
    this.opts.alerter?.send("exit", `WOLF ${line}, ROE ${record.roe_pct.toFixed(2)}%`, {
      instrument: slot.instrument,
      realized_pnl: record.realized_pnl,
    });
  }

  /** The position vanished outside our orders (liquidation, manual close): rebuild the exit from the fills. */
  private async closeFromFills(slot: Slot, note: string): Promise<void> {
    const closeSide = slot.side === "long" ? "sell" : "buy";
    let exit = {
      ...(slot.exit ?? startExit("reconcile", this.opts.port.now())),
      filled_size: "0",
      filled_notional: "0",
      fees: "0",
    };
    exit.reason = `${exit.reason} (${note})`;
    try {
      const fills = await this.opts.port.fillsSince(slot.coin, slot.opened_at_ms);
      // Fills of our own exit orders are in trades.jsonl already; others (a liquidation, a close by
      // hand) are logged here, so reviews see every way a position ended.
      const logged = new Set(readTrades(this.opts.dataDir).map((t) => t.oid));
      let left = dec(slot.entry_size);
      for (const f of fills) {
        if (f.side !== closeSide || left.lte(0)) continue;
        // The exchange delisted the market and settled the position (docs, Trading > Delisting).
        if (f.settlement) exit.reason = `delisted: settled by the exchange at ${f.price}`;
        const sz = D.min(dec(f.size), left);
        exit = addExitFill(exit, wire(sz), f.price, f.fee);
        left = left.minus(sz);
        if (!logged.has(f.oid))
          this.recordTrade(slot, closeSide, f.oid, f.price, wire(sz), f.fee, exit.reason, "", f.time);
      }
    } catch (e) {
      this.opts.log(`fills for ${slot.instrument} unavailable: ${(e as Error).message}`);
    }
    // Whatever no fill explains is booked at the last known price.
    const missing = dec(slot.entry_size).minus(exit.filled_size);
    if (missing.gt(0)) exit = addExitFill(exit, wire(missing), slot.current_price, "0");
    this.finalize({ ...slot, exit });
  }

  private async exchangePosition(coin: string): Promise<ExchangePosition | undefined> {
    try {
      const all = await this.opts.port.positions();
      return all.find((p) => p.coin === coin) ?? { coin, szi: "0", entryPx: "0" };
    } catch {
      return undefined;
    }
  }
}

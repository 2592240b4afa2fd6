import { randomBytes } from "node:crypto";
import type { Alerter } from "../alerts/webhook.ts";
import { D, dec, wire } from "../core/decimal.ts";
import type { MoverSignal } from "../signals/movers.ts";
import { type MoversConfig, moversConfig } from "../signals/movers-config.ts";
import { moversOnce, scanOnce } from "../signals/run.ts";
import type { Opportunity } from "../signals/scanner.ts";
import { type ScannerConfig, scannerConfig } from "../signals/scanner-config.ts";
import { observeSmartMoney, type SmartMoneySignal, type SmartMoneyState } from "../signals/smart-money.ts";
import { CandleCache } from "../signals/source.ts";
import { acquireRunLock, type RunLock } from "../store/run-lock.ts";
import { addExitFill, closeRecord, entrySize, remainingSize, startExit } from "./accounting.ts";
import type { WolfConfig } from "./config.ts";
import { type EntryPlan, planTick, type TickInputs, trackSlot } from "./engine.ts";
import { SlotGuards } from "./guards.ts";
import type { ExchangePosition, WolfPort } from "./port.ts";
import { journalClosedSlot, rememberWolfSession } from "./records.ts";
import {
  dslDir,
  emptySlot,
  freshState,
  loadWolfState,
  resizeSlots,
  type Slot,
  saveWolfState,
  utcDay,
  type WolfState,
  wolfDir,
} from "./state.ts";
import { appendTrade, readTrades } from "./trades.ts";

/** What the review engine (src/review/) gets: called every review_interval_ticks and daily at review_hour_utc. */
export interface ReviewContext {
  reason: "interval" | "daily";
  tick: number;
  nowMs: number;
  dataDir: string;
  state: WolfState;
  config: WolfConfig;
}

export interface WolfRunnerOptions {
  port: WolfPort;
  dataDir: string;
  preset: string;
  config: WolfConfig;
  /** ignore a saved state and start fresh (only allowed when it has no open slot) */
  fresh?: boolean;
  log?: (line: string) => void;
  onReview?: (ctx: ReviewContext) => Promise<void> | void;
  /** subscribe to streamed mids so the DSL sees every price, not one per tick (default true) */
  stream?: boolean;
  scanner?: ScannerConfig;
  movers?: MoversConfig;
  /** Operator alerts (daily loss limit, entries, exits); default: none. */
  alerter?: Alerter;
}

const newCloid = (): `0x${string}` => `0x${randomBytes(16).toString("hex")}`;
const isOpen = (s: Slot) => s.status === "active" || s.status === "closing";

/**
 * The WOLF tick loop with its I/O: prices, guards (tick + stream), signals, decisions, orders,
 * reconciliation with the exchange, state.json and trades.jsonl. Every state change runs through one
 * serial queue, so a stream-triggered exit and a tick never interleave.
 */
export class WolfRunner {
  state: WolfState;
  readonly guards: SlotGuards;
  private queue: Promise<unknown> = Promise.resolve();
  private scannerQueue: { opportunities: Opportunity[]; untilTick: number } = {
    opportunities: [],
    untilTick: 0,
  };
  private lastMovers: MoverSignal[] = [];
  private smartState: SmartMoneyState = {};
  private smartSeeded = false;
  private streamExits = new Set<number>();
  private unsubscribe: (() => Promise<void>) | undefined;
  private streamReady: Promise<void> = Promise.resolve();
  private readonly cache: CandleCache;
  private readonly scannerCfg: ScannerConfig;
  private readonly moversCfg: MoversConfig;
  private readonly log: (line: string) => void;
  private lastMids: Record<string, string> = {};

  private constructor(
    private readonly opts: WolfRunnerOptions,
    state: WolfState,
    private readonly lock: RunLock,
  ) {
    this.state = state;
    this.log = opts.log ?? ((l) => process.stderr.write(`${l}\n`));
    this.guards = new SlotGuards(dslDir(opts.dataDir), opts.config, this.log);
    this.cache = new CandleCache(opts.port, opts.config.candle_refresh_s * 1000);
    const c = opts.config;
    this.scannerCfg =
      opts.scanner ??
      scannerConfig(c.scanner_preset, { min_volume_24h: c.scanner_min_volume_24h ?? undefined });
    this.moversCfg =
      opts.movers ?? moversConfig(c.movers_preset, { volume_min_24h: c.movers_min_volume_24h ?? undefined });
  }

  get config(): WolfConfig {
    return this.opts.config;
  }

  /** Load (or create) the state, restore guards, reconcile with the exchange, start the price stream. */
  static async open(opts: WolfRunnerOptions): Promise<WolfRunner> {
    const lock = acquireRunLock(wolfDir(opts.dataDir), "trading", "WOLF");
    try {
      return await WolfRunner.start(opts, lock);
    } catch (err) {
      lock.release();
      throw err;
    }
  }

  private static async start(opts: WolfRunnerOptions, lock: RunLock): Promise<WolfRunner> {
    const now = opts.port.now();
    const loaded = loadWolfState(opts.dataDir);
    let state: WolfState;
    if (loaded.kind === "ok" && !opts.fresh) {
      state = { ...loaded.state, preset: opts.preset, config: { ...opts.config } };
      state.slots = resizeSlots(state.slots, opts.config.max_slots);
    } else {
      if (loaded.kind === "ok" && loaded.state.slots.some(isOpen)) {
        throw new Error("refusing --fresh: the saved state has open slots (close them or resume)");
      }
      state = freshState(opts.preset, opts.config, now);
    }
    const runner = new WolfRunner(opts, state, lock);
    for (const s of state.slots) if (isOpen(s)) runner.guards.restore(s, now);
    await runner.reconcile();
    await runner.pollSmartMoney(new Map()); // seeds the whales' current positions: they are not "new"
    runner.save();
    rememberWolfSession(opts.dataDir, "session_start", runner.state, now, runner.log);
    // The stream attaches in the background: ticks (and their DSL checks) start at once regardless.
    if (opts.stream !== false) {
      runner.streamReady = opts.port
        .subscribeMids((mids) => runner.onMids(mids))
        .then((unsubscribe) => {
          runner.unsubscribe = unsubscribe;
        })
        .catch((e) =>
          runner.log(`price stream unavailable (${(e as Error).message}); the DSL runs on ticks only`),
        );
    }
    return runner;
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  save(): void {
    this.state.updated_ms = this.opts.port.now();
    this.state.config = { ...this.opts.config }; // a review may have retuned it in place
    saveWolfState(this.opts.dataDir, this.state);
  }

  private slot(id: number): Slot {
    return this.state.slots[id]!;
  }

  private setSlot(slot: Slot): void {
    this.state.slots[slot.slot_id] = slot;
  }

  /** Streamed mids: run each active slot's guard; a close verdict sends the exit right away. */
  onMids(mids: Record<string, string>): void {
    const now = this.opts.port.now();
    Object.assign(this.lastMids, mids);
    for (const s of this.state.slots) {
      if (s.status !== "active" || this.streamExits.has(s.slot_id)) continue;
      const raw = mids[s.coin];
      if (raw === undefined) continue;
      const price = Number(raw);
      const r = this.guards.evaluate(s.slot_id, price, now);
      const tracked = trackSlot(s, price, now);
      this.setSlot(r ? { ...tracked, dsl_phase: r.phase, dsl_tier: r.tier_index } : tracked);
      if (r?.action === "close") {
        this.streamExits.add(s.slot_id);
        this.log(`slot ${s.slot_id} ${s.instrument}: DSL close on streamed price ${raw}: ${r.reason}`);
        void this.serial(async () => {
          try {
            await this.exitSlot(s.slot_id, `dsl_close: ${r.reason}`);
          } finally {
            this.streamExits.delete(s.slot_id);
            this.save();
          }
        }).catch((e) => this.log(`stream exit failed: ${(e as Error).message}`));
      }
    }
  }

  /** One tick (serialised with stream exits). */
  tick(): Promise<void> {
    return this.serial(() => this.runTick());
  }

  private async runTick(): Promise<void> {
    const port = this.opts.port;
    const cfg = this.opts.config;
    const st = this.state;
    st.tick_count += 1;
    const now = port.now();
    const today = utcDay(now);
    if (st.day !== today) {
      this.log(`new UTC day ${today}: daily PnL ${st.daily_pnl} reset`);
      st.day = today;
      st.daily_pnl = "0";
      st.daily_loss_triggered = false;
    }
    if (st.tick_count % cfg.reconcile_interval_ticks === 0) await this.reconcile();

    const mids = await port.mids().catch((e) => {
      this.log(`mids unavailable: ${(e as Error).message}`);
      return {} as Record<string, string>;
    });
    Object.assign(this.lastMids, mids);
    const prices = new Map<string, number>();
    for (const [coin, px] of Object.entries(mids)) prices.set(coin, Number(px));

    const dslCloses = new Map<number, string>();
    for (const s of st.slots) {
      if (s.status !== "active") continue;
      const px = prices.get(s.coin);
      if (px === undefined) continue;
      const r = this.guards.evaluate(s.slot_id, px, now);
      if (!r) continue;
      this.setSlot({ ...s, dsl_phase: r.phase, dsl_tier: r.tier_index });
      if (r.action === "close") dslCloses.set(s.slot_id, r.reason);
    }
    this.guards.persistAll();

    this.lastMovers = await moversOnce(port, this.cache, this.moversCfg, this.opts.dataDir)
      .then((m) => m.signals)
      .catch((e) => {
        this.log(`movers scan failed: ${(e as Error).message}`);
        return [];
      });
    if ((st.tick_count - 1) % cfg.scanner_interval_ticks === 0) {
      await scanOnce(port, this.cache, this.scannerCfg, this.opts.dataDir)
        .then((r) => {
          // Opportunities stay valid until the next scan (the predecessor saw them on one tick only).
          this.scannerQueue = {
            opportunities: r.result.opportunities,
            untilTick: st.tick_count + cfg.scanner_interval_ticks,
          };
        })
        .catch((e) => this.log(`scanner failed: ${(e as Error).message}`));
    }
    const scanner = st.tick_count < this.scannerQueue.untilTick ? this.scannerQueue.opportunities : [];
    const smartMoney = await this.pollSmartMoney(prices);

    const inputs: TickInputs = {
      nowMs: now,
      prices,
      dslCloses,
      movers: this.lastMovers,
      scanner,
      smartMoney,
    };
    const plan = planTick(st, cfg, inputs, (c) => port.instrumentOf(c));
    st.slots = plan.slots;
    if (plan.daily_loss_triggered && !st.daily_loss_triggered) {
      st.daily_loss_triggered = true;
      const line = `daily loss limit reached (realized ${st.daily_pnl}, unrealized ${plan.unrealized_pnl}): closing all slots`;
      this.log(line);
      this.opts.alerter?.send("daily_loss", `WOLF ${line}; no entries until the next UTC day`);
    }

    // Exits first: retries of unfinished closes, then this tick's decisions; then entries.
    for (const s of st.slots)
      if (s.status === "closing") await this.exitSlot(s.slot_id, s.exit?.reason ?? "retry");
    for (const e of plan.exits) await this.exitSlot(e.slot_id, e.reason);
    if (!st.daily_loss_triggered) for (const e of plan.entries) await this.enterSlot(e);
    this.save();
    await this.review(now);
  }

  private async pollSmartMoney(prices: ReadonlyMap<string, number>): Promise<SmartMoneySignal[]> {
    const cfg = this.opts.config;
    if (!cfg.smart_money_enabled || cfg.smart_money_addresses.length === 0) return [];
    // The first poll (at start-up) only seeds what the whales already hold.
    if (this.smartSeeded && this.state.tick_count % cfg.smart_money_poll_interval_ticks !== 0) return [];
    const polls = Object.fromEntries(
      await Promise.all(
        cfg.smart_money_addresses.map(async (a) => [a, await this.opts.port.walletPositions(a)] as const),
      ),
    );
    const r = observeSmartMoney(
      {
        min_position_usd: cfg.smart_money_min_position_usd,
        conviction_threshold: cfg.smart_money_conviction_threshold,
      },
      this.smartState,
      polls,
      Object.fromEntries(prices),
    );
    this.smartState = r.state;
    this.smartSeeded = true;
    return r.signals;
  }

  private async review(now: number): Promise<void> {
    const hook = this.opts.onReview;
    if (!hook) return;
    const cfg = this.opts.config;
    const st = this.state;
    const calls: ReviewContext["reason"][] = [];
    if (st.tick_count % cfg.review_interval_ticks === 0) calls.push("interval");
    const today = utcDay(now);
    if (new Date(now).getUTCHours() >= cfg.review_hour_utc && st.last_review_day !== today) {
      st.last_review_day = today;
      calls.push("daily");
    }
    for (const reason of calls) {
      try {
        await hook({
          reason,
          tick: st.tick_count,
          nowMs: now,
          dataDir: this.opts.dataDir,
          state: st,
          config: cfg,
        });
      } catch (e) {
        this.log(`review (${reason}) failed: ${(e as Error).message}`);
      }
      st.last_review_tick = st.tick_count;
    }
    if (calls.length) this.save();
  }

  /** Open a position for an entry plan with one IOC at a marketable limit; the slot fills only on a fill. */
  private async enterSlot(e: EntryPlan): Promise<void> {
    const port = this.opts.port;
    const cfg = this.opts.config;
    if (this.slot(e.slot_id).status !== "empty") return;
    try {
      const info = await port.marketInfo(e.coin);
      const leverage = Math.max(1, Math.floor(Math.min(cfg.leverage, info.maxLeverage)));
      const mid = Number((await port.mids())[e.coin] ?? 0);
      const size = entrySize(cfg.margin_per_slot, leverage, mid, info.szDecimals, cfg.min_order_usd);
      if (!size) {
        this.log(`skip ${info.instrument}: no price or size below the minimum order`);
        return;
      }
      await port
        .setLeverage(e.coin, leverage)
        .catch((err) => this.log(`leverage ${info.instrument}: ${(err as Error).message}`));
      const cloid = newCloid();
      const side = e.direction === "long" ? "buy" : "sell";
      const res = await port.ioc({
        coin: e.coin,
        side,
        size,
        slippage: cfg.entry_slippage,
        reduceOnly: false,
        cloid,
      });
      if (res.status !== "filled") {
        this.log(`entry ${info.instrument} ${e.direction} not filled: ${res.message}`);
        return;
      }
      const now = port.now();
      const slot: Slot = {
        ...emptySlot(e.slot_id),
        status: "active",
        instrument: info.instrument,
        coin: e.coin,
        side: e.direction,
        entry_source: e.source,
        entry_signal_score: e.score,
        entry_price: res.price,
        entry_size: res.size,
        entry_fee: res.fee,
        margin_allocated: wire(dec(cfg.margin_per_slot)),
        leverage,
        current_price: res.price,
        dsl_phase: 1,
        dsl_tier: -1,
        opened_at_ms: now,
        last_progress_ms: now,
        last_signal_seen_ms: now,
      };
      slot.dsl_position_id = SlotGuards.positionId(slot);
      this.setSlot(slot);
      this.guards.create(slot, now);
      this.recordTrade(slot, side, res.oid, res.price, res.size, res.fee, `entry:${e.source}`, cloid, now);
      this.save();
      const opened = `opened slot ${e.slot_id}: ${info.instrument} ${e.direction} ${res.size} @ ${res.price} (${e.reason})`;
      this.log(opened);
      this.opts.alerter?.send("entry", `WOLF ${opened}`, { instrument: info.instrument });
    } catch (err) {
      this.log(`entry ${e.coin} failed: ${(err as Error).message}`);
    }
  }

  private recordTrade(
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

  /**
   * Close a slot: reduce-only IOC for what is still open. The slot is marked closed only once fills
   * covering the whole position are confirmed; a partial fill leaves it "closing" to be retried.
   */
  async exitSlot(slotId: number, reason: string): Promise<void> {
    const port = this.opts.port;
    let slot = this.slot(slotId);
    if (!isOpen(slot)) return;
    if (!slot.exit) {
      slot = { ...slot, status: "closing", exit: startExit(reason, port.now()) };
      this.setSlot(slot); // the stream stops evaluating this slot while its close is in flight
    }
    const remaining = remainingSize(slot);
    if (remaining.lte(0)) {
      this.finalize(slot);
      return;
    }
    const side = slot.side === "long" ? "sell" : "buy";
    const cloid = newCloid();
    let res: Awaited<ReturnType<WolfPort["ioc"]>>;
    try {
      res = await port.ioc({
        coin: slot.coin,
        side,
        size: wire(remaining),
        slippage: this.opts.config.exit_slippage,
        reduceOnly: true,
        cloid,
      });
    } catch (e) {
      res = { status: "unfilled", message: (e as Error).message };
    }
    const exit = { ...slot.exit!, attempts: slot.exit!.attempts + 1 };
    slot = { ...slot, exit };
    if (res.status === "filled") {
      slot = { ...slot, exit: addExitFill(exit, res.size, res.price, res.fee) };
      this.setSlot(slot);
      this.recordTrade(slot, side, res.oid, res.price, res.size, res.fee, exit.reason, cloid, port.now());
      if (remainingSize(slot).lte(0)) this.finalize(slot);
      else
        this.log(
          `slot ${slotId} ${slot.instrument}: partial exit ${res.size}, ${wire(remainingSize(slot))} left`,
        );
      return;
    }
    this.setSlot(slot);
    this.log(`slot ${slotId} ${slot.instrument}: exit not filled (${res.message}); checking the exchange`);
    const pos = await this.exchangePosition(slot.coin);
    if (pos !== undefined && dec(pos.szi).isZero())
      await this.closeFromFills(slot, "position already closed on the exchange");
  }

  /** Record the close: PnL from confirmed fills, daily/total PnL, guard closed, slot emptied. */
  private finalize(slot: Slot): void {
    const now = this.opts.port.now();
    const exit = slot.exit!;
    const { record, pnl } = closeRecord(slot, exit, now);
    const st = this.state;
    st.closed_slots = [...st.closed_slots, record].slice(-this.opts.config.closed_history_size);
    st.daily_pnl = wire(dec(st.daily_pnl).plus(pnl));
    st.total_pnl = wire(dec(st.total_pnl).plus(pnl));
    if (dec(st.daily_pnl).lte(-this.opts.config.daily_loss_limit)) st.daily_loss_triggered = true;
    this.guards.close(slot.slot_id, Number(record.exit_price), exit.reason, now);
    this.setSlot(emptySlot(slot.slot_id));
    journalClosedSlot(this.opts.dataDir, slot, record, this.opts.config.margin_per_slot, this.log);
    const line = `closed slot ${slot.slot_id}: ${slot.instrument} ${slot.side} @ ${record.exit_price}, PnL ${record.realized_pnl} (${exit.reason})`;
    this.log(line);
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
        const sz = D.min(dec(f.size), left);
        exit = addExitFill(exit, wire(sz), f.price, f.fee);
        left = left.minus(sz);
        if (!logged.has(f.oid))
          this.recordTrade(slot, closeSide, f.oid, f.price, wire(sz), f.fee, exit.reason, "", f.time);
      }
    } catch (e) {
      this.log(`fills for ${slot.instrument} unavailable: ${(e as Error).message}`);
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

  /**
   * Make the slots agree with the exchange: a slot whose position is gone is closed from its fills; a
   * size that differs is adopted; an exchange position no slot knows is adopted into a free slot
   * (guarded from then on) or reported. Runs at start-up, before any entry, and every few ticks.
   */
  async reconcile(): Promise<void> {
    let positions: ExchangePosition[];
    try {
      positions = await this.opts.port.positions();
    } catch (e) {
      this.log(`reconcile skipped: ${(e as Error).message}`);
      return;
    }
    const now = this.opts.port.now();
    const byCoin = new Map(positions.filter((p) => !dec(p.szi).isZero()).map((p) => [p.coin, p]));
    for (const s of this.state.slots) {
      if (!isOpen(s)) continue;
      const p = byCoin.get(s.coin);
      byCoin.delete(s.coin);
      const exSide = p ? (dec(p.szi).gt(0) ? "long" : "short") : undefined;
      if (!p || exSide !== s.side) {
        this.log(`reconcile: slot ${s.slot_id} ${s.instrument} has no ${s.side} position on the exchange`);
        await this.closeFromFills(s, "no position on the exchange");
        continue;
      }
      const size = dec(p.szi).abs();
      const expected = remainingSize(s);
      if (!size.eq(expected)) {
        this.log(
          `reconcile: slot ${s.slot_id} ${s.instrument} size ${wire(expected)} → exchange ${wire(size)}`,
        );
        this.setSlot({ ...s, entry_size: wire(size.plus(s.exit?.filled_size ?? 0)) });
      }
    }
    for (const p of byCoin.values()) {
      const free = this.state.slots.find((s) => s.status === "empty");
      const instrument = this.opts.port.instrumentOf(p.coin);
      if (!free) {
        this.log(`reconcile: ${instrument} position ${p.szi} has no free slot; it is NOT managed by WOLF`);
        continue;
      }
      const info = await this.opts.port.marketInfo(p.coin).catch(() => undefined);
      const leverage = Math.max(
        1,
        Math.floor(Math.min(this.opts.config.leverage, info?.maxLeverage ?? this.opts.config.leverage)),
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
      this.setSlot(slot);
      this.guards.create(slot, now);
      this.log(
        `reconcile: adopted ${instrument} ${slot.side} ${slot.entry_size} @ ${slot.entry_price} into slot ${slot.slot_id}`,
      );
    }
  }

  /** Run ticks until `maxTicks` ticks of THIS run are done (0 = forever) or `signal` aborts. */
  async run(opts: {
    maxTicks: number;
    tickMs: number;
    signal?: AbortSignal;
    onTick?: (s: WolfState) => void;
  }): Promise<void> {
    let done = 0;
    while (!opts.signal?.aborted && (opts.maxTicks === 0 || done < opts.maxTicks)) {
      const started = Date.now();
      try {
        await this.tick();
      } catch (e) {
        this.log(`tick ${this.state.tick_count} failed: ${(e as Error).message}`);
      }
      done++;
      opts.onTick?.(this.state);
      if (opts.maxTicks !== 0 && done >= opts.maxTicks) break;
      // A fixed cadence: the tick's own work counts toward the interval.
      await sleep(Math.max(0, opts.tickMs - (Date.now() - started)), opts.signal);
    }
  }

  /** Stop the stream and wait for queued work (open positions stay open and are resumed next start). */
  async close(): Promise<void> {
    await this.queue;
    await this.streamReady;
    if (this.unsubscribe) await this.unsubscribe().catch(() => undefined);
    this.save();
    rememberWolfSession(this.opts.dataDir, "session_end", this.state, this.opts.port.now(), this.log);
    this.lock.release();
    await this.opts.alerter?.flush();
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const onAbort = () => {
      clearTimeout(t);
      resolve();
    };
    const t = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

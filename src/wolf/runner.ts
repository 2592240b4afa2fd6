import type { Alerter } from "../alerts/webhook.ts";
import { D, dec, wire } from "../core/decimal.ts";
import { CoinCooldowns } from "../exchange/rejections.ts";
import type { MoverSignal } from "../signals/movers.ts";
import { type MoversConfig, moversConfig } from "../signals/movers-config.ts";
import type { Opportunity } from "../signals/scanner.ts";
import { type ScannerConfig, scannerConfig } from "../signals/scanner-config.ts";
import { observeSmartMoney, type SmartMoneySignal, type SmartMoneyState } from "../signals/smart-money.ts";
import { CandleCache, type MarketDataSource } from "../signals/source.ts";
import { acquireRunLock, type RunLock } from "../store/run-lock.ts";
import { entrySize, remainingSize } from "./accounting.ts";
import type { WolfConfig } from "./config.ts";
import { type EntryPlan, planTick, type TickInputs } from "./engine.ts";
import { SlotGuards } from "./guards.ts";
import { newCloid } from "./ids.ts";
import type { ExchangePosition, IocResult, UnresolvedOrder, WolfPort } from "./port.ts";
import { PriceFeed, type PriceFeedOptions } from "./price-feed.ts";
import { pricesSince } from "./prices-since.ts";
import { Protector } from "./protector.ts";
import { rememberWolfSession } from "./records.ts";
import { SlotBackstops } from "./slot-backstops.ts";
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
  /** subscribe to streamed mids so every exit sees every price, not one per tick (default true) */
  stream?: boolean;
  /** Price feed timings (poll period while degraded, silence limit, resubscription back-off). */
  feed?: Pick<PriceFeedOptions, "pollMs" | "silenceMs" | "retryMinMs" | "retryMaxMs">;
  scanner?: ScannerConfig;
  movers?: MoversConfig;
  /** Operator alerts (daily loss limit, entries, exits); default: none. */
  alerter?: Alerter;
}

const isOpen = (s: Slot) => s.status === "active" || s.status === "closing";

/**
 * The WOLF tick loop with its I/O: signals, decisions, entries, reconciliation with the exchange,
 * state.json. Ticks run one after another; exits belong to the Protector (src/wolf/protector.ts),
 * which acts on every price at once and never waits for a tick or its scans.
 */
export class WolfRunner {
  state: WolfState;
  readonly guards: SlotGuards;
  readonly protector: Protector;
  /** The slots' exchange backstops (when the port can place stops). */
  readonly backstops: SlotBackstops | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private scannerQueue: { opportunities: Opportunity[]; untilTick: number } = {
    opportunities: [],
    untilTick: 0,
  };
  /** Whether this run has scanned yet. */
  private scanned = false;
  private lastMovers: MoverSignal[] = [];
  private smartState: SmartMoneyState = {};
  private smartSeeded = false;
  /** The start-up poll that seeds what the whales already hold; the first tick waits for it. */
  private smartSeed: Promise<void> = Promise.resolve();
  /** Set once the first state (reconciled, every open slot guarded) is written. */
  private started = false;
  private feed: PriceFeed | undefined;
  /** Coins left alone after a refusal that will not go away at once. */
  private readonly cooldowns = new CoinCooldowns();
  /** Set (with the reason) when a refusal means no entry can succeed this run. */
  private entriesStopped: string | undefined;
  /** Pending entries being resolved, by slot. */
  private readonly resolving = new Map<number, Promise<void>>();
  private streamReady: Promise<void> = Promise.resolve();
  private readonly cache: CandleCache;
  private readonly scannerCfg: ScannerConfig;
  private readonly moversCfg: MoversConfig;
  private readonly log: (line: string) => void;
  /** What the scans read: every request first waits until no close is in flight. */
  private readonly scanSource: MarketDataSource;

  private constructor(
    private readonly opts: WolfRunnerOptions,
    state: WolfState,
    private readonly lock: RunLock,
  ) {
    this.state = state;
    this.log = opts.log ?? ((l) => process.stderr.write(`${l}\n`));
    this.guards = new SlotGuards(dslDir(opts.dataDir), opts.config, this.log);
    this.backstops = opts.port.backstops
      ? new SlotBackstops({
          port: opts.port.backstops,
          book: this,
          guards: this.guards,
          config: opts.config,
          now: () => opts.port.now(),
          log: this.log,
          ...(opts.alerter ? { alerter: opts.alerter } : {}),
        })
      : undefined;
    this.protector = new Protector({
      port: opts.port,
      dataDir: opts.dataDir,
      config: opts.config,
      guards: this.guards,
      book: this,
      log: this.log,
      ...(opts.alerter ? { alerter: opts.alerter } : {}),
      ...(this.backstops ? { backstops: this.backstops } : {}),
    });
    const port = opts.port;
    const idle = () => this.protector.idle();
    this.scanSource = {
      now: () => port.now(),
      markets: async () => {
        await idle();
        return port.markets();
      },
      candles: async (coin, interval, startTime, endTime) => {
        await idle();
        return port.candles(coin, interval, startTime, endTime);
      },
    };
    this.cache = new CandleCache(this.scanSource, opts.config.candle_refresh_s * 1000);
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
    for (const s of state.slots)
      if (isOpen(s)) runner.guards.restore(s, now, await runner.lostGuardPrices(s, now));
    // Protection first: the stream attaches (in the background) while the exchange is asked, so the
    // restored stops see prices as soon as it can deliver them; ticks start at once regardless.
    if (opts.stream !== false) runner.startFeed();
    else delete runner.state.price_stream;
    try {
      await runner.reconcile();
      // Exactly one exchange stop per open slot, and none left over from closed ones.
      await runner.backstops?.reconcile();
    } catch (err) {
      await runner.feed?.stop();
      throw err;
    }
    for (const s of state.slots) if (s.status === "pending") void runner.resolvePending(s.slot_id);
    // The first state written is the reconciled one, with every open slot guarded.
    runner.started = true;
    runner.save();
    rememberWolfSession(opts.dataDir, "session_start", runner.state, now, runner.log);
    // Off the start's critical path: seeding the whales' current positions (they are not "new").
    runner.smartSeed = runner.pollSmartMoney(new Map()).then(
      () => undefined,
      (err: unknown) =>
        runner.log(`smart money: start-up poll failed (${(err as Error).message}); the first tick seeds it`),
    );
    return runner;
  }

  /**
   * When a slot's guard is lost on disk, the prices its coin traded at since the entry (15m candles),
   * so the rebuilt stop's high water is no lower than the market's; none when the guard survives or
   * the candles cannot be read (the stop is then rebuilt from the entry and the slot's saved ratchet).
   */
  private async lostGuardPrices(slot: Slot, nowMs: number): Promise<number[]> {
    if (this.guards.survives(slot) || slot.opened_at_ms <= 0) return [];
    try {
      return pricesSince(
        await this.opts.port.candles(slot.coin, "15m", slot.opened_at_ms, nowMs),
        slot.opened_at_ms,
      );
    } catch (err) {
      this.log(
        `slot ${slot.slot_id} (${slot.instrument}): prices since entry unavailable (${err instanceof Error ? err.message : String(err)}); the stop is rebuilt from the saved ratchet`,
      );
      return [];
    }
  }

  private startFeed(): void {
    const feed = new PriceFeed({
      port: this.opts.port,
      onMids: (mids) => this.onMids(mids),
      guardedCoins: () => this.protector.guardedCoins(),
      onStatus: (status) => {
        this.state.price_stream = status;
        if (this.started) this.save();
      },
      log: this.log,
      ...(this.opts.alerter ? { alerter: this.opts.alerter } : {}),
      ...this.opts.feed,
    });
    this.feed = feed;
    this.state.price_stream = "ok";
    this.streamReady = feed.start();
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

  /** Streamed mids go straight to the protective path. */
  onMids(mids: Record<string, string>): void {
    this.protector.onMids(mids);
  }

  /** One tick (ticks never overlap; exits do not wait for them). */
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
    if (st.tick_count % cfg.reconcile_interval_ticks === 0) {
      await this.reconcile();
      await this.backstops?.reconcile();
    }
    for (const s of st.slots) if (s.status === "pending") void this.resolvePending(s.slot_id);

    const mids = await port.mids().catch((e) => {
      this.log(`mids unavailable: ${(e as Error).message}`);
      return {} as Record<string, string>;
    });
    const prices = new Map<string, number>();
    for (const [coin, px] of Object.entries(mids)) prices.set(coin, Number(px));
    // The tick's prices take the same protective path as streamed ones (closes go out at once).
    this.protector.onMids(mids);
    this.guards.persistAll();

    // Loaded on the first tick, not at start: a restarted run is guarded before the scans' code loads.
    const { moversOnce, scanOnce } = await import("../signals/run.ts");

    this.lastMovers = await moversOnce(this.scanSource, this.cache, this.moversCfg, this.opts.dataDir)
      .then((m) => m.signals)
      .catch((e) => {
        this.log(`movers scan failed: ${(e as Error).message}`);
        return [];
      });
    // The queue lives in memory: a (re)started run scans on its first tick rather than waiting.
    if (!this.scanned || (st.tick_count - 1) % cfg.scanner_interval_ticks === 0) {
      this.scanned = true;
      await scanOnce(this.scanSource, this.cache, this.scannerCfg, this.opts.dataDir)
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
    await this.smartSeed;
    const smartMoney = await this.pollSmartMoney(prices);

    const inputs: TickInputs = {
      nowMs: now,
      prices,
      dslCloses: new Map(),
      movers: this.lastMovers,
      scanner,
      smartMoney,
      blocked: new Set(
        [...this.lastMovers, ...scanner, ...smartMoney]
          .map((x) => x.asset)
          .filter((coin) => this.cooldowns.blocking(coin, now)),
      ),
    };
    const plan = planTick(st, cfg, inputs, (c) => port.instrumentOf(c));
    st.slots = plan.slots;
    if (plan.daily_loss_triggered) this.protector.tripDailyLoss(plan.unrealized_pnl);

    // Exits first: retries of unfinished closes, then this tick's decisions; then entries.
    const exits: Promise<void>[] = [];
    for (const s of st.slots)
      if (s.status === "closing") exits.push(this.protector.exit(s.slot_id, s.exit?.reason ?? "retry"));
    for (const e of plan.exits) exits.push(this.protector.exit(e.slot_id, e.reason));
    await Promise.all(exits);
    if (!st.daily_loss_triggered && !this.entriesStopped) for (const e of plan.entries) await this.enter(e);
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
  async enter(e: EntryPlan): Promise<void> {
    const port = this.opts.port;
    const cfg = this.opts.config;
    if (this.slot(e.slot_id).status !== "empty") return;
    const holder = this.state.slots.find((s) => s.status !== "empty" && s.coin === e.coin);
    if (holder) {
      this.log(`entry ${e.coin} skipped: slot ${holder.slot_id} holds it (${holder.status})`);
      return;
    }
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
            this.save();
          },
        });
      let cloid = newCloid();
      let res: IocResult;
      try {
        res = await send(size, cloid);
        if (res.status === "unfilled" && res.rejection?.reaction === "shrink") {
          // Too large for the margin or the margin tier: one smaller order, not the same one again.
          const half = halfSize(size, info.szDecimals, mid, cfg.min_order_usd);
          this.log(
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
        this.log(
          `entry ${info.instrument} ${e.direction}: ${(err as Error).message}; slot ${e.slot_id} stays pending until the exchange says what became of it`,
        );
        void this.resolvePending(e.slot_id);
        return;
      }
      if (res.status === "unknown") {
        this.setSlot({ ...base, status: "pending", pending_order: res.unresolved });
        this.save();
        this.log(
          `entry ${info.instrument} ${e.direction}: outcome unknown (${res.message}); slot ${e.slot_id} pending, nothing else goes out for ${e.coin} until the exchange says what became of it`,
        );
        void this.resolvePending(e.slot_id);
        return;
      }
      if (res.status !== "filled") {
        if (this.slot(e.slot_id).status === "pending") {
          this.setSlot(emptySlot(e.slot_id));
          this.save();
        }
        this.onEntryRefused(info.instrument, e, res);
        return;
      }
      this.activate(base, res, cloid, e.reason);
    } catch (err) {
      this.log(`entry ${e.coin} failed: ${(err as Error).message}`);
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
      this.log(`entry ${instrument} ${e.direction} not filled: ${res.message}`);
      return;
    }
    const what = `entry ${instrument} ${e.direction} refused (${rejection.reason}: ${res.message})`;
    switch (rejection.reaction) {
      case "retry_next_tick":
        this.log(`${what}; the next tick may try again`);
        return;
      case "shrink":
      case "skip_coin": {
        const skip =
          rejection.reaction === "skip_coin"
            ? rejection
            : { ...rejection, reaction: "skip_coin" as const, cooldownMs: 60_000 };
        this.cooldowns.note(e.coin, skip, this.opts.port.now());
        this.log(`${what}; ${e.coin} is left alone for ${Math.round(skip.cooldownMs / 1000)} s`);
        return;
      }
      case "stop":
        this.entriesStopped = what;
        this.log(`${what}; no more entries this run (open slots stay guarded)`);
        this.opts.alerter?.send("halt", `WOLF ${what}: no more entries this run; open slots stay guarded`);
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
    const now = this.opts.port.now();
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
    Object.assign(slot, this.guards.openedWith(slot));
    this.setSlot(slot);
    this.guards.create(slot, now);
    // The exchange stop goes out at once, before the bookkeeping.
    void this.backstops?.sync(slot.slot_id);
    const side = slot.side === "long" ? "buy" : "sell";
    this.protector.recordTrade(
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
    this.save();
    const opened = `opened slot ${slot.slot_id}: ${slot.instrument} ${slot.side} ${fill.size} @ ${fill.price} (${why})`;
    this.log(opened);
    this.opts.alerter?.send("entry", `WOLF ${opened}`, { instrument: slot.instrument });
  }

  /**
   * Ask the exchange what became of a pending slot's entry (once at a time per slot): filled → the
   * slot adopts the position; not executed → the slot is free again; cannot tell yet → asked again
   * on the next tick. Until then the slot's coin is held: nothing else is sent for it.
   */
  private resolvePending(slotId: number): Promise<void> {
    const running = this.resolving.get(slotId);
    if (running) return running;
    const slot = this.slot(slotId);
    const order = slot.pending_order;
    if (slot.status !== "pending" || !order) return Promise.resolve();
    const run = this.opts.port
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
          this.save();
          this.log(`entry ${now.instrument}: not executed (${res.message}); slot ${slotId} is free again`);
        },
        (err: unknown) =>
          this.log(
            `entry ${slot.instrument}: outcome still unknown (${(err as Error).message}); asking again next tick`,
          ),
      )
      .finally(() => this.resolving.delete(slotId));
    this.resolving.set(slotId, run);
    return run;
  }

  /** Wait for closes and entry resolutions in flight. */
  async settled(): Promise<void> {
    while (this.resolving.size > 0) await Promise.allSettled([...this.resolving.values()]);
    await this.protector.settled();
    await this.backstops?.settled();
  }

  /** Close a slot now (joins a close already in flight). */
  exitSlot(slotId: number, reason: string): Promise<void> {
    return this.protector.exit(slotId, reason);
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
      if (this.protector.closing(s.slot_id)) continue; // its close settles it
      const exSide = p ? (dec(p.szi).gt(0) ? "long" : "short") : undefined;
      if (!p || exSide !== s.side) {
        this.log(`reconcile: slot ${s.slot_id} ${s.instrument} has no ${s.side} position on the exchange`);
        await this.protector.settleGone(s.slot_id, "no position on the exchange");
        continue;
      }
      const size = dec(p.szi).abs();
      const expected = remainingSize(s);
      if (!size.eq(expected)) {
        this.log(
          `reconcile: slot ${s.slot_id} ${s.instrument} size ${wire(expected)} → exchange ${wire(size)}`,
        );
        this.setSlot({ ...s, entry_size: wire(size.plus(s.exit?.filled_size ?? 0)) });
        void this.backstops?.sync(s.slot_id); // the exchange stop follows the size
      }
    }
    for (const p of byCoin.values()) {
      // A pending entry's position is adopted by its own resolution, with its fill's price.
      if (this.state.slots.some((s) => s.status !== "empty" && s.coin === p.coin)) continue;
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
      Object.assign(slot, this.guards.openedWith(slot));
      this.setSlot(slot);
      this.guards.create(slot, now);
      void this.backstops?.sync(slot.slot_id);
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
    await this.settled();
    await this.streamReady;
    await this.feed?.stop();
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

/** Half an order's size, rounded down to the asset's size step; undefined below the minimum order. */
function halfSize(size: string, szDecimals: number, mid: number, minOrderUsd: number): string | undefined {
  const half = dec(size).div(2).toDecimalPlaces(szDecimals, D.ROUND_DOWN);
  return half.gt(0) && half.times(mid).gte(minOrderUsd) ? wire(half) : undefined;
}

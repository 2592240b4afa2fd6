import type { Alerter } from "../alerts/webhook.ts";
import { inBackground } from "../exchange/background.ts";
import { readsStoppedBy } from "../exchange/stoppable-reads.ts";
import { CandleCache } from "../signals/candle-cache.ts";
import type { MoverSignal } from "../signals/movers.ts";
import { type MoversConfig, moversConfig } from "../signals/movers-config.ts";
import type { Opportunity } from "../signals/scanner.ts";
import { type ScannerConfig, scannerConfig } from "../signals/scanner-config.ts";
import { observeSmartMoney, type SmartMoneySignal, type SmartMoneyState } from "../signals/smart-money.ts";
import type { MarketDataSource } from "../signals/source.ts";
import { acquireRunLock, type RunLock } from "../store/run-lock.ts";
import type { WolfConfig } from "./config.ts";
import { type EntryPlan, planTick, type TickInputs } from "./engine.ts";
import { Entries } from "./entries.ts";
import { SlotGuards } from "./guards.ts";
import type { WolfPort } from "./port.ts";
import { PriceFeed, type PriceFeedOptions } from "./price-feed.ts";
import { pricesSince } from "./prices-since.ts";
import { Protector } from "./protector.ts";
import { reconcileSlots } from "./reconcile.ts";
import { rememberWolfSession } from "./records.ts";
import { SlotBackstops } from "./slot-backstops.ts";
import {
  dslDir,
  freshState,
  loadWolfState,
  resizeSlots,
  type ScanProgress,
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
  /**
   * Take the data dir's run lock (default true). Only a guard running beside a trader that holds it
   * and cannot act (SIGSTOPped) passes false; see src/wolf/guard-only.ts.
   */
  lock?: boolean;
  /** Never write state.json (the paused trader owns it); closes still go out and trades are logged. */
  readOnlyState?: boolean;
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
  /** Scans in flight (they may outlast the tick that started them). */
  private moversRun: Promise<void> | undefined;
  private scanRun: Promise<void> | undefined;
  /** The run's stop (see run()): a tick waiting for its scans stops waiting, and the scans' reads are given up. */
  private stopSignal: AbortSignal | undefined;
  private smartState: SmartMoneyState = {};
  private smartSeeded = false;
  /** The start-up poll that seeds what the whales already hold; the first tick waits for it. */
  private smartSeed: Promise<void> = Promise.resolve();
  /** Set once the start's reconciliation is done; the stream's status and the scans save from then on. */
  private started = false;
  private feed: PriceFeed | undefined;
  /** Entries and the resolution of pending ones. */
  readonly entries: Entries;
  private streamReady: Promise<void> = Promise.resolve();
  private readonly cache: CandleCache;
  private readonly scannerCfg: ScannerConfig;
  private readonly moversCfg: MoversConfig;
  private readonly log: (line: string) => void;
  /** What the scans read: every request first waits until no close is in flight. */
  private readonly scanSource: MarketDataSource;
  /** Each pass's series read / to read, whether this run's first pass of each finished, what they found. */
  private readonly passes = {
    scanner: { read: 0, total: 0, finished: false, signals: 0 },
    movers: { read: 0, total: 0, finished: false, signals: 0 },
  };
  private progressSavedAt = Number.NEGATIVE_INFINITY;
  /** Set by close(): a scan left behind then must not write the state another run may own by now. */
  private closed = false;

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
    this.entries = new Entries({
      port: opts.port,
      config: opts.config,
      book: this,
      guards: this.guards,
      protector: this.protector,
      ...(this.backstops ? { backstops: this.backstops } : {}),
      log: this.log,
      ...(opts.alerter ? { alerter: opts.alerter } : {}),
    });
    const port = opts.port;
    const idle = () => this.protector.idle();
    this.scanSource = {
      now: () => port.now(),
      markets: async () => {
        await idle();
        return port.markets();
      },
      // The scan's candle series wait for the weight the ticks leave (exchange/background.ts).
      candles: async (coin, interval, startTime, endTime) => {
        await idle();
        return inBackground(() => port.candles(coin, interval, startTime, endTime));
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
    const lock =
      opts.lock === false
        ? { path: "", release: () => undefined }
        : acquireRunLock(wolfDir(opts.dataDir), "trading", "WOLF");
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
    // A refusal that stopped the last run's entries is tried again by this one.
    delete state.entries_halted;
    // This run's caches are empty: its first scan reads every series again.
    state.scan = { phase: "first_scan", series_read: 0, series_total: 0, last_scan_ms: null, signals: 0 };
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
    for (const s of state.slots) if (s.status === "pending") void runner.entries.resolvePending(s.slot_id);
    // The reconciled state, every open slot guarded, is written now. It is not always this run's first
    // write: a slot's stop placed or a close settled during the start saves the state as it stood then,
    // perhaps half reconciled (a crash before here leaves that, and the next start reconciles it again).
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
      onStatus: (status, _reason, silentCoins) => {
        this.state.price_stream = status;
        this.state.price_stream_coins = [...silentCoins];
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
    if (this.opts.readOnlyState) return;
    this.state.updated_ms = this.opts.port.now();
    this.state.config = { ...this.opts.config }; // a review may have retuned it in place
    // A coin that fell silent while the stream was already degraded is not a status change: read it here.
    if (this.feed) this.state.price_stream_coins = this.feed.degradedCoins();
    saveWolfState(this.opts.dataDir, this.state);
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
    for (const s of st.slots) if (s.status === "pending") void this.entries.resolvePending(s.slot_id);

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
    const { moversOnce, planScanReads, scanOnce } = await import("../signals/run.ts");
    planScanReads(this.cache, this.scannerCfg);

    // A scan waits on the request-weight budget (a first pass reads some forty candle series): the
    // tick waits for it at most SCAN_WAIT_MS, then goes on with the last results; the scan's own
    // results arrive with a later tick. A scan still running is never started twice.
    const scans: Promise<void>[] = [];
    // The scans only read: a stop gives their reads up (a read may wait a minute for its weight).
    const stoppable = <T>(scan: () => T): T =>
      this.stopSignal ? readsStoppedBy(this.stopSignal, scan) : scan();
    this.moversRun ??= stoppable(() =>
      moversOnce(this.scanSource, this.cache, this.moversCfg, this.opts.dataDir, (read, total) =>
        this.scanProgress("movers", read, total),
      ),
    )
      .then((m) => {
        this.lastMovers = m.signals;
      })
      .catch((e) => {
        this.lastMovers = [];
        this.log(`movers scan failed: ${(e as Error).message}`);
      })
      .finally(() => {
        this.moversRun = undefined;
        this.passFinished("movers", this.lastMovers.length);
      });
    scans.push(this.moversRun);
    // The queue lives in memory: a (re)started run scans on its first tick rather than waiting.
    if (!this.scanRun && (!this.scanned || (st.tick_count - 1) % cfg.scanner_interval_ticks === 0)) {
      this.scanned = true;
      this.scanRun = stoppable(() =>
        scanOnce(this.scanSource, this.cache, this.scannerCfg, this.opts.dataDir, (read, total) =>
          this.scanProgress("scanner", read, total),
        ),
      )
        .then((r) => {
          // Opportunities stay valid until the next scan (the predecessor saw them on one tick only).
          this.scannerQueue = {
            opportunities: r.result.opportunities,
            untilTick: this.state.tick_count + cfg.scanner_interval_ticks,
          };
          if (this.state.scan) this.state.scan.last_scan_ms = port.now();
          this.passFinished("scanner", r.result.opportunities.length);
        })
        .catch((e) => {
          this.log(`scanner failed: ${(e as Error).message}`);
          this.passFinished("scanner", 0);
        })
        .finally(() => {
          this.scanRun = undefined;
        });
    }
    if (this.scanRun) scans.push(this.scanRun);
    await waitAtMost(Promise.all(scans), SCAN_WAIT_MS, this.stopSignal);
    // Stopped while it waited: no decision is taken on the way out (exits keep their protective path).
    if (this.stopSignal?.aborted) return;
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
          .filter((coin) => this.entries.blocking(coin, now)),
      ),
    };
    // A slot opened (or adopted) while this tick's scans ran is not judged by the tick's older price:
    // the stream has been guarding it since, with newer ones.
    for (const s of st.slots) if (s.opened_at_ms > now) prices.delete(s.coin);
    const plan = planTick(st, cfg, inputs, (c) => port.instrumentOf(c));
    st.slots = plan.slots;
    if (plan.daily_loss_triggered) this.protector.tripDailyLoss(plan.unrealized_pnl);

    // Exits first: retries of unfinished closes, then this tick's decisions; then entries.
    const exits: Promise<void>[] = [];
    for (const s of st.slots)
      if (s.status === "closing") exits.push(this.protector.exit(s.slot_id, s.exit?.reason ?? "retry"));
    for (const e of plan.exits) exits.push(this.protector.exit(e.slot_id, e.reason));
    await Promise.all(exits);
    if (!st.daily_loss_triggered && !this.entries.stopped)
      for (const e of plan.entries) await this.entries.enter(e);
    this.save();
    await this.review(now);
  }

  /** A pass read one more candle series: shown in state.json (saved at most every 2 s for this). */
  private scanProgress(pass: "scanner" | "movers", read: number, total: number): void {
    Object.assign(this.passes[pass], { read, total });
    this.showScan();
    const now = performance.now();
    if (this.started && !this.closed && now - this.progressSavedAt >= 2_000) {
      this.progressSavedAt = now;
      this.save();
    }
  }

  private passFinished(pass: "scanner" | "movers", signals: number): void {
    Object.assign(this.passes[pass], { finished: true, signals });
    this.showScan();
    // A pass that outlasted its tick is shown now, not a tick later.
    if (this.started && !this.closed) this.save();
  }

  private showScan(): void {
    const { scanner, movers } = this.passes;
    const scan: ScanProgress = this.state.scan ?? {
      phase: "first_scan",
      series_read: 0,
      series_total: 0,
      last_scan_ms: null,
      signals: 0,
    };
    scan.phase = scanner.finished && movers.finished ? "ready" : "first_scan";
    scan.series_read = scanner.read + movers.read;
    scan.series_total = scanner.total + movers.total;
    scan.signals = scanner.signals + movers.signals;
    this.state.scan = scan;
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

  /** Open a position for an entry plan (see src/wolf/entries.ts). */
  enter(e: EntryPlan): Promise<void> {
    return this.entries.enter(e);
  }

  /** Wait for closes and entry resolutions in flight. */
  async settled(): Promise<void> {
    await this.entries.settled();
    await this.protector.settled();
    await this.backstops?.settled();
  }

  /** Close a slot now (joins a close already in flight). */
  exitSlot(slotId: number, reason: string): Promise<void> {
    return this.protector.exit(slotId, reason);
  }

  /**
   * Make the slots agree with the exchange (src/wolf/reconcile.ts). Runs at start-up, before any
   * entry, and every few ticks.
   */
  reconcile(): Promise<void> {
    return reconcileSlots({
      port: this.opts.port,
      config: this.opts.config,
      book: this,
      guards: this.guards,
      protector: this.protector,
      ...(this.backstops ? { backstops: this.backstops } : {}),
      log: this.log,
    });
  }

  /** Run ticks until `maxTicks` ticks of THIS run are done (0 = forever) or `signal` aborts. */
  async run(opts: {
    maxTicks: number;
    tickMs: number;
    signal?: AbortSignal;
    onTick?: (s: WolfState) => void;
  }): Promise<void> {
    let done = 0;
    this.stopSignal = opts.signal;
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
    // A scan still waiting on the weight budget is left behind after a short grace: it only reads.
    await waitAtMost(Promise.all([this.moversRun, this.scanRun]), 2_000);
    await this.streamReady;
    await this.feed?.stop();
    this.save();
    this.closed = true;
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

/** How long a tick waits for its scans before going on with the last results. */
const SCAN_WAIT_MS = 10_000;

/**
 * Resolves when `p` settles, after `ms`, or once `signal` aborts, whichever is first (the timer never
 * keeps the process up).
 */
function waitAtMost(p: Promise<unknown>, ms: number, signal?: AbortSignal): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
    timer.unref();
    onAbort = resolve;
    signal?.addEventListener("abort", onAbort, { once: true });
  });
  return Promise.race([p.then(() => undefined), timeout]).finally(() => {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener("abort", onAbort);
  });
}

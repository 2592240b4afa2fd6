import { join } from "node:path";
import type { Alerter } from "../alerts/webhook.ts";
import { type Dec, dec, wire } from "../core/decimal.ts";
import { UserError } from "../core/errors.ts";
import { usd } from "../core/money.ts";
import { HALTED_MS } from "../exchange/rejections.ts";
import { readsForShutdown, readsSeenThrough, readsStoppedBy } from "../exchange/stoppable-reads.ts";
import { instrumentToCoin } from "../exchange/symbols.ts";
import { isBackstopCloid } from "../guard/backstop.ts";
import type { BackstopPort } from "../guard/backstops.ts";
import type { RunStopConfig } from "../guard/position-stop.ts";
import { RunBackstop } from "../guard/run-backstop.ts";
import type { SessionSnapshot } from "../review/memory.ts";
import type { StrategyRecords } from "../review/strategy-records.ts";
import type {
  Advice,
  AdviceRequest,
  AnyStrategy,
  DecisionContext,
  FillView,
  MarketSnapshot,
} from "../strategies/sdk.ts";
import { CloidFactory, engineTag, type OrderPlan, planOrders, roundIntent } from "./order-manager.ts";
import type {
  CancelResult,
  Cloid,
  GatewayFill,
  GatewayOrder,
  InstrumentSpec,
  MarketDataPort,
  OrderGateway,
  PlaceRequest,
} from "./ports.ts";
import { Position, type PositionJson } from "./position.ts";
import { PushedFillsWait } from "./pushed-fills-wait.ts";
import { RejectionPolicy } from "./rejection-policy.ts";
import {
  drawdownPct,
  evaluateRisk,
  filterIntents,
  initialRiskState,
  type RiskLimits,
  type RiskMode,
  type RiskState,
} from "./risk.ts";
import { RunStop } from "./run-stop.ts";
import { type FillJournal, type KvStore, StateStore, TradeLog, type TradeRecord } from "./state-store.ts";

/** Answers an advice request (an LLM call); must honour the abort signal. */
export type Advisor = (req: AdviceRequest, signal: AbortSignal) => Promise<Advice>;

export type RunMode = "live" | "mock" | "dry-run" | "backtest";

export interface EngineOptions {
  strategy: AnyStrategy;
  params: Record<string, number>;
  instrument: string;
  market: MarketDataPort;
  gateway: OrderGateway;
  /** Directory of state.db and trades.jsonl (the CLI passes $DATA_DIR/cli). */
  dataDir: string;
  tickMs: number;
  /** Ticks of this run (0 = until stopped). */
  maxTicks: number;
  resume: boolean;
  limits: RiskLimits;
  /** An open quote within this many bps of the desired price is left alone. */
  requoteBps: number;
  mode: RunMode;
  network: string;
  advisor?: Advisor;
  /** Tick lines and notices (default: stderr). */
  log?: (line: string) => void;
  /** Wall clock (only for heartbeats and timers; market time comes from snapshots). */
  now?: () => number;
  /**
   * The wait between ticks, called with the whole interval (default: a timer for what is left of the
   * interval once the tick's own time is counted, which stop() cuts short). A backtest passes its
   * virtual clock's advance, so no wall time passes.
   */
  sleep?: (ms: number) => Promise<void>;
  /**
   * Where state and fills are kept (default: state.db and trades.jsonl in `dataDir`, state saved
   * every tick). A backtest keeps both in memory and saves state only when the run stops; a live run
   * passes the state store it already opened for its pending orders. The engine closes the store.
   */
  persistence?: { store?: KvStore; fills?: FillJournal; everyTick?: boolean };
  /** One status line per tick through `log` (default true). */
  tickLines?: boolean;
  /** Every tick's report, whether or not tick lines are on (a backtest records its risk states and refusals). */
  onTick?: (r: TickReport) => void;
  /**
   * Dead man's switch window (ms, exchange time; 0 or absent = off): while orders rest, the venue is
   * told to cancel every order of the account this long after the last renewal, so quotes do not
   * outlive a process that died without its shutdown (SIGKILL, out of memory, a lost machine).
   */
  deadManMs?: number;
  /** Operator alerts (risk hard stop, reduce-only); default: none. */
  alerter?: Alerter;
  /** Journal of closed positions and session memory events; default: none. */
  records?: StrategyRecords;
  /** A DSL trailing stop on the run's position; its guard file lives in `guardDir`. */
  dslStop?: { config: RunStopConfig; guardDir: string };
  /**
   * With `dslStop`: keep a reduce-only stop resting on the exchange beyond the stop's floor, so the
   * position stays protected while this process is not running (src/guard/run-backstop.ts).
   */
  backstops?: BackstopPort;
  /**
   * Protect-only: never add to the position. Every tick runs as in reduce-only mode (the strategy
   * may still reduce it; the risk limits still stop it), whatever the limits say.
   */
  entriesDisabled?: boolean;
}

/** Ticks a delisted run holding a position reads its fills for the settlement before it stops anyway. */
const SETTLEMENT_WAIT_TICKS = 5;

export interface OrderStats {
  total_placed: number;
  total_filled: number;
  total_cancelled: number;
  total_rejected: number;
  fill_cursor: { time_ms: number; ids: string[] };
}

export interface RunResult {
  ticks: number;
  tickCount: number;
  stopReason: "max_ticks" | "signal" | "halted" | "dsl_stop" | "delisted";
  haltReason?: string;
  /** Why the DSL stop closed the position (stopReason "dsl_stop"). */
  dslReason?: string;
  stats: OrderStats;
  position: PositionJson;
}

export interface TickReport {
  tick: number;
  mid: number;
  sent: number;
  filled: number;
  cancelled: number;
  rejected: number;
  risk: RiskMode;
  skipped?: string;
}

const RECENT_FILLS = 10;
const DAY_MS = 86_400_000;
/** A run that re-enters reduce-only within this long of its last reduce-only alert is not alerted again. */
const REDUCE_ONLY_REALERT_MS = 30 * 60_000;
/** scheduleCancel: the exchange refuses a time under 5 s from its receipt; one more second for transit. */
const DEAD_MAN_MIN_AHEAD_MS = 6_000;
/** The DSL reason of a run whose exchange stop closed its position. */
const EXCHANGE_STOP_REASON = "exchange stop";
/** How far past the mid the DSL stop's IOC close is priced. */
const DSL_CLOSE_SLIPPAGE = 0.05;
const MAX_CONSECUTIVE_FAILURES = 5;

/**
 * The single-strategy engine: reconcile with the exchange, then tick — snapshot, apply new fills,
 * mark to market, risk check, (advice), strategy decision, risk filter, diff quotes against our
 * open orders, cancel/place, apply fills, persist every kv key in one transaction. Stops on max
 * ticks, stop() (Ctrl-C/SIGTERM; the sleep is interrupted) or a hard risk breach; on the way out it
 * cancels our resting orders and saves state.
 */
export class Engine {
  private readonly store: KvStore;
  private readonly trades: FillJournal;
  private readonly persistEveryTick: boolean;
  private readonly log: (line: string) => void;
  private readonly now: () => number;
  private readonly cloids: CloidFactory;
  private position: Position;
  private risk: RiskState = initialRiskState();
  private readonly refusals = new RejectionPolicy();
  private stats: OrderStats = emptyStats();
  private strategyState: unknown;
  private tickCount = 0;
  private startTimeMs: number;
  private spec: InstrumentSpec | undefined;
  private recentFills: FillView[] = [];
  private stopRequested = false;
  private stopReason: RunResult["stopReason"] = "max_ticks";
  /** Ticks since meta showed the market delisted while the settlement fill of our position was not in yet. */
  private settlementWait: number | undefined;
  /** The book emptied and meta was asked whether the market is delisted (once until it trades again). */
  private emptyBookChecked = false;
  private wake: (() => void) | undefined;
  /** Aborted by stop(): the tick under way gives up its reads (shutdown's own reads are not cut). */
  private readonly stopAsked = new AbortController();
  private lastMode: RiskMode = "ok";
  /** The risk filter's refusal reasons of the last tick that planned (a notice is logged when they change). */
  private lastFilterReasons = "";
  /** The refusal orders were last held back for (said once per streak, not once per tick). */
  private lastHeld: string | undefined;
  /** Exchange time at which the armed dead man's switch fires; null while disarmed. */
  private deadManAt: number | null = null;
  private deadManUnavailable = false;
  /** Fills already in trades.jsonl past the saved cursor (a crash came between the two); not logged again. */
  private journaled = new Set<string>();
  private readonly dsl: RunStop | undefined;
  /** The exchange stop of the DSL-guarded position (with `backstops`). */
  readonly backstop: RunBackstop | undefined;
  /** The DSL stop's close order, and why it was sent (its fill's journal close reason). */
  private dslClose: { cloid: Cloid; reason: string } | null = null;
  private dslReason: string | undefined;
  /** The guarded position was closed by its exchange stop (a fill this engine did not send). */
  private closedByBackstop: { price: string } | undefined;
  /** The last tick's mid (0 before the first with a market). */
  private lastMid = 0;
  /** The last risk evaluation while flat, and the fill count and UTC day it was made on. */
  private lastRisk: { state: RiskState; mode: RiskMode; fills: number; day: number } | undefined;
  /** When the last reduce-only alert went out (market time), if any. */
  private reduceOnlyAlertedAt: number | undefined;
  private realizedNum = { fills: -1, value: 0 };
  private drawdownOf: { state: RiskState | undefined; pct: number } = { state: undefined, pct: 0 };
  /** With a DSL stop and a venue that pushes fills: the wait between ticks takes them in at once. */
  private readonly pushedFills: PushedFillsWait | undefined;
  /** Fills taken in between ticks, counted in the next tick's report. */
  private filledBetweenTicks = 0;

  constructor(private readonly o: EngineOptions) {
    this.store = o.persistence?.store ?? StateStore.inDir(o.dataDir);
    this.trades = o.persistence?.fills ?? new TradeLog(join(o.dataDir, "trades.jsonl"));
    this.persistEveryTick = o.persistence?.everyTick ?? true;
    this.log = o.log ?? ((line) => process.stderr.write(`${line}\n`));
    this.now = o.now ?? Date.now;
    this.startTimeMs = this.now();
    this.cloids = new CloidFactory(engineTag(o.strategy.id, o.instrument), this.startTimeMs);
    this.position = new Position(o.instrument);
    this.strategyState = o.strategy.init(o.params);
    const positionId = `run:${o.strategy.id}:${o.instrument}`;
    this.dsl = o.dslStop
      ? new RunStop(o.dslStop.config, o.dslStop.guardDir, positionId, o.instrument)
      : undefined;
    const alerter = o.alerter;
    this.backstop =
      o.dslStop && o.backstops
        ? new RunBackstop({
            port: o.backstops,
            coin: instrumentToCoin(o.instrument),
            guardDir: o.dslStop.guardDir,
            positionId,
            now: this.now,
            log: this.log,
            ...(alerter ? { alert: (t: string) => alerter.send("backstop", `hl run: ${t}`) } : {}),
          })
        : undefined;
    const gateway = o.gateway;
    this.pushedFills =
      this.dsl && gateway.onFillPushed
        ? new PushedFillsWait((listener) => gateway.onFillPushed!(o.instrument, listener))
        : undefined;
  }

  /**
   * Requests a graceful stop: the sleep is cut short and the current tick ends at its next read (a
   * read waiting for weight is given up; orders already sent are seen through), then shutdown.
   */
  stop(): void {
    if (!this.stopRequested) this.stopReason = "signal";
    this.stopRequested = true;
    this.stopAsked.abort();
    this.wake?.();
  }

  async run(): Promise<RunResult> {
    let ticks = 0;
    try {
      if (this.o.resume) this.restore();
      let reconciled = true;
      try {
        await readsStoppedBy(this.stopAsked.signal, () => this.reconcile());
      } catch (e) {
        if (!this.stopAsked.signal.aborted) throw e;
        // A stop while the start waits for weight ends the run there, before any order, as a failed
        // read would: the exchange stop resting for the position, if any, is left as it is.
        reconciled = false;
        this.log(`start cut short by the stop: ${e instanceof Error ? e.message : String(e)}`);
      }
      // Exactly one exchange stop for a guarded position, found again by its cloid after a restart.
      if (reconciled) await this.backstop?.start(wire(this.position.qty));
      // A fired switch cancels every open order, the stop too, and nothing would place it again.
      if (this.backstop && (this.o.deadManMs ?? 0) > 0 && this.o.gateway.scheduleCancelAll) {
        this.deadManUnavailable = true;
        this.log(
          "dead man's switch off: a fired switch would also cancel the stop order resting on the exchange for this position (its backstop); resting quotes are not cancelled if this process dies",
        );
      }
      this.o.records?.session("session_start", this.sessionSnapshot(), this.now());
      if (this.risk.halted) this.halt(this.risk.halt_reason);
      let failures = 0;
      while (!this.stopRequested && (this.o.maxTicks <= 0 || ticks < this.o.maxTicks)) {
        const began = performance.now();
        let waitMs = this.o.tickMs;
        try {
          await readsStoppedBy(this.stopAsked.signal, () => this.tick());
          failures = 0;
          // Ticks keep the interval's rhythm: the time a tick spent (its reads waiting for weight
          // above all) counts toward it. After a failed tick the whole interval is waited.
          waitMs = this.o.tickMs - (performance.now() - began);
        } catch (e) {
          if (this.stopAsked.signal.aborted) {
            // Cut short by the stop, like a failed read: shutdown reconciles orders and fills.
            this.log(
              `tick ${this.tickCount + 1} cut short by the stop: ${e instanceof Error ? e.message : String(e)}`,
            );
            break;
          }
          // A bad tick (network blip, exchange hiccup) is logged and the next one tries again;
          // an error the user must fix, or a run of failures, stops the engine.
          failures += 1;
          if (e instanceof UserError || failures >= MAX_CONSECUTIVE_FAILURES) throw e;
          this.log(`tick ${this.tickCount + 1} failed: ${e instanceof Error ? e.message : String(e)}`);
        }
        ticks += 1;
        if (!this.stopRequested && (this.o.maxTicks <= 0 || ticks < this.o.maxTicks))
          await this.betweenTicks(waitMs);
      }
    } finally {
      this.pushedFills?.close();
      // Its reads (our open orders, the last fills) do not wait for the minute of a spent share.
      await readsForShutdown(() => this.shutdown());
      this.o.records?.session("session_end", this.sessionSnapshot(), this.now());
      await this.o.alerter?.flush();
    }
    this.syncMark();
    return {
      ticks,
      tickCount: this.tickCount,
      stopReason: this.stopReason,
      ...(this.risk.halted ? { haltReason: this.risk.halt_reason } : {}),
      ...(this.dslReason ? { dslReason: this.dslReason } : {}),
      stats: this.stats,
      position: this.position.toJson(),
    };
  }

  // ── start ────────────────────────────────────────────────────────────────────────────────

  private restore(): void {
    const kv = this.store.readAll();
    const read = <T>(k: string): T | undefined =>
      kv[k] === undefined ? undefined : (JSON.parse(kv[k]) as T);
    const tick = read<number>("tick_count");
    if (tick === undefined) return;
    const sid = read<string>("strategy_id");
    const inst = read<string>("instrument");
    if (sid !== this.o.strategy.id || inst !== this.o.instrument) {
      this.log(`saved state is for ${sid} on ${inst}; starting fresh`);
      return;
    }
    this.tickCount = tick;
    this.startTimeMs = read<number>("start_time_ms") ?? this.startTimeMs;
    const positions = read<{ agents?: Record<string, Record<string, PositionJson>> }>("positions");
    const saved = positions?.agents?.[sid]?.[inst];
    if (saved) this.position = Position.fromJson(saved);
    const risk = read<{ state?: RiskState }>("risk");
    if (risk?.state) this.risk = { ...initialRiskState(), ...risk.state };
    const stats = read<Partial<OrderStats>>("order_stats");
    if (stats) this.stats = { ...emptyStats(), ...stats };
    this.log(
      `resumed at tick ${tick} (${this.stats.total_placed} orders, ${this.stats.total_filled} fills so far)`,
    );
  }

  /** Before the first order: missed fills, the exchange's position, and our resting orders. */
  private async reconcile(): Promise<void> {
    this.spec = await this.o.market.spec(this.o.instrument);
    const snap = await this.o.market.snapshot(this.o.instrument);
    if (this.stats.fill_cursor.time_ms === 0) {
      // Fresh state: earlier fills on the account are not ours to replay; the position is adopted below.
      this.stats.fill_cursor = { time_ms: snap.timestampMs > 0 ? snap.timestampMs : this.now(), ids: [] };
    } else {
      this.journaled = this.trades.fillIdsSince(this.stats.fill_cursor.time_ms);
      const applied = await this.syncFills();
      if (applied > 0) this.log(`reconciled ${applied} fill(s) made while the engine was down`);
    }
    const ex = await this.o.gateway.position(this.o.instrument);
    if (!dec(ex.qty).eq(this.position.qty)) {
      this.log(`position reconciled with the exchange: ${wire(this.position.qty)} → ${ex.qty}`);
      this.position.adopt(ex.qty, ex.entryPx);
    }
    const ours = (await this.o.gateway.openOrders(this.o.instrument)).filter((x) =>
      this.cloids.owns(x.cloid),
    );
    if (ours.length > 0) this.log(`adopted ${ours.length} resting order(s) from a previous run`);
  }

  // ── tick ─────────────────────────────────────────────────────────────────────────────────

  /**
   * One tick. The awaited steps stay here and the work between them is in plain methods, so the
   * state a suspended tick keeps is small (a backtest runs hundreds of thousands of ticks).
   */
  private async tick(): Promise<void> {
    // A venue that answers at once is not awaited (see snapshotNow); syncFills and ourOpenOrders are
    // written out here for the same reason: fewer suspended calls on every tick.
    const { market, gateway, instrument } = this.o;
    const snap = market.snapshotNow ? market.snapshotNow(instrument) : await market.snapshot(instrument);
    const cursor = this.stats.fill_cursor;
    const filled =
      this.filledBetweenTicks +
      this.applyFills(
        cursor,
        gateway.fillsNow
          ? gateway.fillsNow(instrument, cursor.time_ms)
          : await gateway.fills(instrument, cursor.time_ms),
      );
    this.filledBetweenTicks = 0;
    // A book that empties may be a delisting: meta is asked once each time it empties.
    if (snap.mid > 0) this.emptyBookChecked = false;
    else if (!this.emptyBookChecked && this.settlementWait === undefined && this.lastMid > 0) {
      this.emptyBookChecked = true;
      await this.checkDelisted();
    }
    // The exchange delisted the market (and settled the position, or will show it settled shortly).
    if (this.stopReason === "delisted" || this.settlementWait !== undefined) {
      if (this.settlementWait !== undefined) await this.awaitSettlement();
      this.tickCount += 1;
      this.persist("running");
      return;
    }
    if (this.closedByBackstop) {
      await this.stopAfterBackstop(
        this.closedByBackstop.price,
        snap.timestampMs > 0 ? snap.timestampMs : this.now(),
      );
      this.tickCount += 1;
      this.persist("running");
      return;
    }
    const assessed = this.assess(snap, filled);
    if (!assessed) return;
    const { mid, mode } = assessed;
    const nowMs = snap.timestampMs > 0 ? snap.timestampMs : this.now();
    // The position's protection (its exchange stop kept in step, a DSL close) is never cut by a stop.
    const dsl = this.dsl;
    if (dsl && (await readsSeenThrough(() => this.guardWithDsl(dsl, mid ?? dec(snap.mid), nowMs, filled))))
      return;
    const qtyBefore = this.position.qty;
    const open = this.ours(
      gateway.openOrdersNow ? gateway.openOrdersNow(instrument) : await gateway.openOrders(instrument),
    );
    const ctx = this.context(snap, open, mode);
    const req = this.o.strategy.adviceRequest?.(ctx, this.o.params, this.strategyState) ?? null;
    if (req) ctx.advice = await this.advise(req);
    const { plan, rejected } = this.planTick(ctx, open, mode);
    const sent =
      plan.cancel.length > 0 || plan.place.length > 0
        ? await this.send(plan, open.length, rejected)
        : { sent: 0, refused: rejected, resting: open.length };
    // IOC fills are applied now; fills of resting orders when pushed (betweenTicks), else next tick.
    const iocFilled = hasIoc(plan.place) ? await this.syncFills() : 0;
    // The exchange stop covers what those fills made of the position now, not a tick later.
    if (dsl && iocFilled > 0 && !this.position.qty.eq(qtyBefore)) await this.followPosition(dsl, nowMs);
    if ((this.o.deadManMs ?? 0) > 0)
      await this.keepDeadMan(snap.timestampMs > 0 ? snap.timestampMs : this.now(), sent.resting);
    this.tickCount += 1;
    this.persist("running");
    if (this.o.tickLines !== false || this.o.onTick)
      this.report({
        tick: this.tickCount,
        mid: snap.mid,
        sent: sent.sent,
        filled: filled + iocFilled,
        cancelled: plan.cancel.length,
        rejected: sent.refused,
        risk: mode,
      });
  }

  /**
   * The position changed with no price to judge (fills of our own): the DSL guard follows it and the
   * exchange stop covers it now. The stop's change is seen through a stop of the run.
   */
  private async followPosition(dsl: RunStop, nowMs: number): Promise<void> {
    dsl.follow({ qty: wire(this.position.qty), entry: this.position.avg.toNumber() }, nowMs);
    await readsSeenThrough(() => this.backstop?.onTick(wire(this.position.qty)) ?? Promise.resolve());
  }

  /** The wait for the next tick; with pushed fills, those that come meanwhile are taken in at once. */
  private betweenTicks(wallMs: number): Promise<void> {
    // A virtual clock (backtest) advances the whole interval: its ticks take no market time.
    const sleep = this.o.sleep ? this.o.sleep(this.o.tickMs) : this.sleep(wallMs);
    return this.pushedFills ? this.pushedFills.wait(sleep, () => this.takeInPushedFills()) : sleep;
  }

  /**
   * Between ticks, the venue pushed a fill (a resting quote filled): it is applied now and the DSL
   * guard and the exchange stop follow the position (no strategy step, no price judged), so a run
   * killed before the next tick leaves the size it added covered. The exchange stop's fill that left
   * the position flat stops the run now (stopAfterBackstop) and ends the wait. The read takes what the
   * stream pushed (no request while the stream is trusted); the stop of the run gives it up.
   */
  private async takeInPushedFills(): Promise<void> {
    const dsl = this.dsl;
    if (!dsl || this.stopRequested) return;
    const before = this.position.qty;
    try {
      const cursor = this.stats.fill_cursor;
      const fetched = await readsStoppedBy(this.stopAsked.signal, () =>
        this.o.gateway.fills(this.o.instrument, cursor.time_ms, { prompted: true }),
      );
      const applied = this.applyFills(cursor, fetched);
      if (applied === 0) return;
      this.filledBetweenTicks += applied;
      // Exchange time, as a tick's snapshot gives it: the newest fill's.
      const nowMs = this.stats.fill_cursor.time_ms;
      // The exchange stop closed the position: the quotes still resting could re-open it unguarded
      // until the next tick, so the run acts now as a tick would.
      const closed = this.closedByBackstop;
      if (closed) await this.stopAfterBackstop(closed.price, nowMs);
      else if (!this.position.qty.eq(before)) await this.followPosition(dsl, nowMs);
      this.persist("running");
      // A fill that ends the run (the exchange stop's, a delisting's settlement) need not wait out the tick interval.
      if (this.stopRequested) this.wake?.();
    } catch (e) {
      if (!this.stopAsked.signal.aborted)
        this.log(
          `fills pushed between ticks not taken in: ${e instanceof Error ? e.message : String(e)}; the next tick reads them`,
        );
    }
  }

  /**
   * The tick's market and risk: marks the position, evaluates the limits and alerts on reduce-only.
   * Returns undefined when the tick ends here (no market data, or a hard stop), already counted.
   */
  private assess(snap: MarketSnapshot, filled: number): { mid: Dec | undefined; mode: RiskMode } | undefined {
    if (!(snap.mid > 0)) {
      this.tickCount += 1;
      this.persist("running");
      this.report({
        tick: this.tickCount,
        mid: 0,
        sent: 0,
        filled,
        cancelled: 0,
        rejected: 0,
        risk: this.lastMode,
        skipped: "no market data",
      });
      return undefined;
    }
    this.lastMid = snap.mid;
    const flat = this.position.qty.isZero();
    // Flat, the mark moves nothing: the decimal mark is set when it is read (persist, summary).
    const mid = flat ? undefined : dec(snap.mid);
    if (mid) this.position.mark = mid;
    const { state, mode } = this.checkRisk(mid, snap.timestampMs > 0 ? snap.timestampMs : this.now());
    this.risk = state;
    const riskNowMs = snap.timestampMs > 0 ? snap.timestampMs : this.now();
    if (mode === "reduce_only" && this.lastMode !== "reduce_only") {
      const line = `risk limit reached: reduce-only until it clears (net PnL ${usd(this.position.netPnl().toString())}, position ${wire(this.position.qty)})`;
      // A run hovering at a limit goes in and out of reduce-only every few ticks: the operator hears
      // of it once per REDUCE_ONLY_REALERT_MS, and the log keeps every entry.
      this.log(`T${this.tickCount + 1} ${line}`);
      if (
        this.reduceOnlyAlertedAt === undefined ||
        riskNowMs - this.reduceOnlyAlertedAt >= REDUCE_ONLY_REALERT_MS
      ) {
        this.reduceOnlyAlertedAt = riskNowMs;
        this.o.alerter?.send("reduce_only", line);
      }
    }
    this.lastMode = mode;
    if (mode === "halt") {
      this.tickCount += 1;
      this.halt(state.halt_reason);
      this.persist("halted");
      this.report({
        tick: this.tickCount,
        mid: snap.mid,
        sent: 0,
        filled,
        cancelled: 0,
        rejected: 0,
        risk: mode,
      });
      return undefined;
    }
    return { mid, mode: this.o.entriesDisabled && mode === "ok" ? "reduce_only" : mode };
  }

  /** The strategy's decision through the refusal policy and the risk filter, diffed against our open orders. */
  private planTick(
    ctx: DecisionContext,
    open: readonly GatewayOrder[],
    mode: RiskMode,
  ): { plan: OrderPlan; rejected: number } {
    let intents: ReturnType<AnyStrategy["decide"]>["orders"] = [];
    try {
      const d = this.o.strategy.decide(ctx, this.o.params, this.strategyState);
      this.strategyState = d.state;
      intents = d.orders;
    } catch (e) {
      this.log(`T${this.tickCount + 1} strategy error: ${e instanceof Error ? e.message : String(e)}`);
    }
    // Nothing wanted and nothing resting: the gate, the filter and the diff would all answer "nothing".
    if (intents.length === 0 && open.length === 0)
      return { plan: { cancel: [], place: [], kept: 0, dropped: 0 }, rejected: 0 };
    const gated = this.refusals.gate(intents, this.now());
    if (gated.held && gated.held !== this.lastHeld && gated.held !== "market_halted")
      this.log(`T${this.tickCount + 1} holding orders back after the exchange refused: ${gated.held}`);
    this.lastHeld = gated.held;
    const { approved, rejected } = filterIntents(this.o.limits, gated.intents, {
      positionQty: ctx.positionQty,
      mid: ctx.snapshot.mid,
      reduceOnly: mode === "reduce_only",
    });
    // Said once for as long as the same reasons repeat tick after tick (one line, not one per tick).
    const reasons = rejected.length === 0 ? "" : [...new Set(rejected.map((r) => r.reason))].join("; ");
    if (reasons !== this.lastFilterReasons && reasons !== "")
      this.log(`T${this.tickCount + 1} risk filter refused: ${reasons}`);
    this.lastFilterReasons = reasons;
    const plan = planOrders(approved, open, {
      instrument: this.o.instrument,
      szDecimals: this.spec?.szDecimals ?? 4,
      requoteBps: this.o.requoteBps,
      cloids: this.cloids,
    });
    return { plan, rejected: rejected.length };
  }

  /**
   * Sends the plan: cancels first, then the new orders (none while a cancel failed and its order may
   * still rest). Returns orders sent, refused (the risk filter's `refused` plus the exchange's) and
   * resting afterwards.
   */
  private async send(
    plan: OrderPlan,
    openCount: number,
    refusedBefore: number,
  ): Promise<{ sent: number; refused: number; resting: number }> {
    let stuck = 0;
    if (plan.cancel.length > 0) {
      const { failed } = await this.o.gateway.cancel(this.o.instrument, plan.cancel);
      this.stats.total_cancelled += plan.cancel.length - failed.length;
      if (failed.length > 0) stuck = await this.stillResting(failed);
    }
    // A quote that could not be cancelled may still rest: new quotes now could double it.
    if (stuck > 0) plan.place = [];
    let sent = 0;
    let refused = refusedBefore;
    let resting = openCount - plan.cancel.length;
    if (plan.place.length > 0) {
      const outcomes = await this.o.gateway.place(plan.place);
      const reasons = new Set<string>();
      for (const out of outcomes) {
        if (out.status === "rejected") {
          refused += 1;
          reasons.add(out.message);
        } else sent += 1;
        if (out.status === "resting") resting += 1;
      }
      if (reasons.size > 0) this.log(`T${this.tickCount + 1} exchange refused: ${[...reasons].join("; ")}`);
      const wasHalted = this.refusals.halted(this.now());
      this.refusals.learn(
        outcomes.flatMap((o) => (o.status === "rejected" ? [o.message] : [])),
        this.now(),
      );
      if (!wasHalted && this.refusals.halted(this.now())) await this.haltedOrDelisted();
      const fatal = this.refusals.stopFor;
      if (fatal) {
        this.log(`stopping: the exchange refused with "${fatal.message}", which no retry can fix`);
        this.o.alerter?.send("halt", `stopping: the exchange refused: ${fatal.message}`);
        this.stopReason = "halted";
        this.stopRequested = true;
      }
      this.stats.total_placed += sent;
      this.stats.total_rejected += outcomes.length - sent;
    }
    return { sent, refused, resting };
  }

  /** "Trading is halted.": for good when the exchange has delisted the market, else for a while. */
  private async haltedOrDelisted(): Promise<void> {
    if (!(await this.checkDelisted())) this.sayHalted();
  }

  /**
   * Whether meta lists the market as delisted. If so, a flat run stops now; one still holding a
   * position first waits for the settlement fill, so the run records it (awaitSettlement).
   */
  private async checkDelisted(): Promise<boolean> {
    if (!(await this.o.market.delisted?.(this.o.instrument).catch(() => false))) return false;
    if (!this.position.qty.isZero()) await this.freshFills();
    if (this.stopReason === "delisted") return true;
    if (this.position.qty.isZero())
      this.delisted(`T${this.tickCount + 1} ${this.o.instrument}: the exchange delisted the market`);
    else this.settlementWait = 0;
    return true;
  }

  /**
   * The settlement fill normally shows in the first fresh read (applyFills then stops the run). If a
   * few more do not bring it, the run stops anyway: nothing can trade there, whatever the account
   * still shows (a paper book settles nothing).
   */
  private async awaitSettlement(): Promise<void> {
    await this.freshFills();
    if (this.stopReason === "delisted") return;
    this.settlementWait = (this.settlementWait ?? 0) + 1;
    if (this.settlementWait < SETTLEMENT_WAIT_TICKS) return;
    this.delisted(
      `T${this.tickCount + 1} ${this.o.instrument}: the exchange delisted the market; the position ${wire(this.position.qty)} still shows no settlement`,
    );
  }

  /** Fills read from the venue now (not from its stream), applied. */
  private async freshFills(): Promise<number> {
    const cursor = this.stats.fill_cursor;
    return this.applyFills(
      cursor,
      await this.o.gateway.fills(this.o.instrument, cursor.time_ms, { fresh: true }),
    );
  }

  /**
   * The exchange delisted the market (docs, Trading > Delisting): it settled any position and will
   * accept no order there again, so the run stops, with one line and one alert.
   */
  private delisted(what: string): void {
    if (this.stopReason === "delisted") return;
    const line = `${what}; no order can be placed there again, stopping`;
    this.log(line);
    this.o.alerter?.send("halt", line);
    this.stopReason = "delisted";
    this.stopRequested = true;
  }

  /** The exchange halted the market: one line (and one alert) for the whole cooldown, not one per tick. */
  private sayHalted(): void {
    const position = this.position.qty.isZero()
      ? ""
      : `; the open position ${wire(this.position.qty)} cannot be closed while it lasts`;
    const line = `${this.o.instrument}: the exchange has halted trading (Trading is halted.); no new orders for ${HALTED_MS / 60_000} min, closing orders tried once a minute${position}`;
    this.log(`T${this.tickCount + 1} ${line}`);
    this.o.alerter?.send("halt", line);
  }

  /**
   * The risk state for this tick's numbers. Flat, with no fill since the last evaluation and on the
   * same UTC day, its inputs are unchanged (the same net PnL, no position, no notional) and so is
   * its result: the last one is reused.
   */
  private checkRisk(mid: Dec | undefined, nowMs: number): { state: RiskState; mode: RiskMode } {
    const day = Math.floor(nowMs / DAY_MS);
    const last = this.lastRisk;
    if (!mid && last && last.fills === this.position.fills && last.day === day && last.state === this.risk)
      return last;
    const r = evaluateRisk(this.o.limits, this.risk, {
      pnl: this.position.netPnl(),
      positionQty: this.position.qty,
      mark: mid ?? dec(this.lastMid),
      nowMs,
    });
    this.lastRisk = mid ? undefined : { ...r, fills: this.position.fills, day };
    return r;
  }

  /** Net realized PnL as a number, recomputed only when a fill changed it. */
  private realizedNumber(): number {
    if (this.realizedNum.fills !== this.position.fills)
      this.realizedNum = {
        fills: this.position.fills,
        value: this.position.realized.minus(this.position.fees).toNumber(),
      };
    return this.realizedNum.value;
  }

  /** The drawdown percent strategies see, recomputed only when the risk state changed. */
  private drawdownPercent(): number {
    if (this.drawdownOf.state !== this.risk)
      this.drawdownOf = { state: this.risk, pct: drawdownPct(this.o.limits, this.risk) };
    return this.drawdownOf.pct;
  }

  private context(snap: MarketSnapshot, open: GatewayOrder[], mode: RiskMode): DecisionContext {
    const flat = this.position.qty.isZero();
    return {
      snapshot: snap,
      positionQty: flat ? 0 : this.position.qty.toNumber(),
      avgEntryPrice: flat ? 0 : this.position.avg.toNumber(),
      unrealizedPnl: flat ? 0 : this.position.unrealized().toNumber(),
      realizedPnl: this.realizedNumber(),
      openOrders: open.map((x) => ({ side: x.side, price: Number(x.price), size: Number(x.size) })),
      recentFills: this.recentFills,
      risk: { reduceOnly: mode === "reduce_only", drawdownPct: this.drawdownPercent() },
      tick: this.tickCount,
      tickSeconds: this.o.tickMs / 1000,
      nowMs: snap.timestampMs,
    };
  }

  /** Awaits the advisor within the request's timeout; any failure becomes advice to hold. */
  private async advise(req: AdviceRequest): Promise<Advice> {
    const advisor = this.o.advisor;
    if (!advisor) return { kind: "error", message: "no advisor configured" };
    const ctl = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<Advice>((resolve) => {
      timer = setTimeout(() => {
        ctl.abort();
        resolve({ kind: "error", message: `advisor timed out after ${req.timeoutMs} ms` });
      }, req.timeoutMs);
    });
    try {
      return await Promise.race([
        advisor(req, ctl.signal).catch(
          (e: unknown): Advice => ({ kind: "error", message: e instanceof Error ? e.message : String(e) }),
        ),
        timeout,
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** After refused cancels: how many of those orders still rest (gone ones were filled or cancelled meanwhile). */
  private async stillResting(failed: CancelResult["failed"]): Promise<number> {
    const open = new Set((await this.ourOpenOrders()).map((o) => o.oid));
    const stuck = failed.filter((f) => open.has(f.order.oid));
    // An order that filled just before its cancel is the usual case, and no harm.
    if (stuck.length > 0) {
      const reasons = [...new Set(stuck.map((f) => f.message))].join("; ");
      this.log(
        `T${this.tickCount + 1} cancel failed for ${stuck.length} order(s) still resting (${reasons}); no new quotes this tick`,
      );
    }
    return stuck.length;
  }

  private async ourOpenOrders(): Promise<GatewayOrder[]> {
    return this.ours(await this.o.gateway.openOrders(this.o.instrument));
  }

  /** The orders among `all` that this engine placed. */
  private ours(all: GatewayOrder[]): GatewayOrder[] {
    return all.length === 0 ? all : all.filter((x) => this.cloids.owns(x.cloid));
  }

  /** Applies fills newer than the cursor (each exactly once), logs them, returns how many. */
  private async syncFills(): Promise<number> {
    const cursor = this.stats.fill_cursor;
    return this.applyFills(cursor, await this.o.gateway.fills(this.o.instrument, cursor.time_ms));
  }

  /** The fetched fills newer than `cursor` applied, journaled and counted (see syncFills). */
  private applyFills(cursor: OrderStats["fill_cursor"], fetched: GatewayFill[]): number {
    const fresh = fetched.length === 0 ? fetched : newSince(cursor, fetched);
    // Other instruments' fills move the cursor too, or every tick would fetch them all again.
    const through = this.o.gateway.accountFillsThroughMs?.() ?? 0;
    if (fresh.length === 0) {
      if (through > cursor.time_ms) this.stats.fill_cursor = { time_ms: through, ids: [] };
      return 0;
    }
    const records: TradeRecord[] = [];
    let settled: { qty: Dec; price: string } | undefined;
    const liquidations: GatewayFill[] = [];
    const stopFills: GatewayFill[] = [];
    /** The price of the exchange stop's fill that left the position flat, if one did. */
    let flatByStop: string | undefined;
    for (const f of fresh) {
      const before = { qty: this.position.qty, avg: this.position.avg };
      if (f.settlement) settled = { qty: before.qty, price: f.price };
      this.position.applyFill(f.side, f.price, f.size, f.fee);
      if (f.liquidation) liquidations.push(f);
      else if (this.backstop && isBackstopCloid("run", f.cloid)) {
        stopFills.push(f);
        if (this.position.qty.isZero()) flatByStop = f.price;
      }
      const byDsl = this.dslClose !== null && f.cloid?.toLowerCase() === this.dslClose.cloid.toLowerCase();
      this.o.records?.onFill(f, before, this.position, {
        ours: this.cloids.owns(f.cloid),
        risk: this.lastMode,
        ...(byDsl ? { reason: this.dslClose?.reason } : {}),
      });
      if (!this.journaled.delete(f.id)) records.push(this.record(f));
      this.recentFills = [
        { side: f.side, price: Number(f.price), size: Number(f.size), timestampMs: f.timeMs },
        ...this.recentFills,
      ].slice(0, RECENT_FILLS);
    }
    const last = Math.max(fresh[fresh.length - 1]!.timeMs, through);
    const idsAtLast = fresh.filter((f) => f.timeMs === last).map((f) => f.id);
    this.stats.fill_cursor = {
      time_ms: last,
      ids: last === cursor.time_ms ? [...cursor.ids, ...idsAtLast] : idsAtLast,
    };
    this.stats.total_filled += fresh.length;
    this.trades.append(records);
    if (liquidations.length > 0) {
      // One line and one alert per batch of fills: a partial liquidation and its backstop arrive together.
      const methods = [...new Set(liquidations.map((f) => f.liquidation!.method))].join(", ");
      const detail = liquidations
        .map((f) => `${f.side} ${wire(f.size)} at ${wire(f.price)}, mark ${wire(f.liquidation!.markPx)}`)
        .join("; ");
      const line = `T${this.tickCount + 1} ${this.o.instrument}: liquidated by the exchange (${methods}): ${detail}; position now ${wire(this.position.qty)}`;
      this.log(line);
      this.o.alerter?.send("liquidation", line);
    }
    if (stopFills.length > 0) {
      const detail = stopFills.map((f) => `${f.side} ${wire(f.size)} at ${wire(f.price)}`).join("; ");
      this.log(
        `T${this.tickCount + 1} ${this.o.instrument}: the exchange stop filled: ${detail}; position now ${wire(this.position.qty)}`,
      );
      // Flat, or flat and then re-opened by a quote filled in the same instant: the stop did its work.
      if (flatByStop !== undefined || this.position.qty.isZero())
        this.closedByBackstop = { price: flatByStop ?? stopFills[stopFills.length - 1]!.price };
      else
        this.o.alerter?.send("backstop", `hl run ${this.o.instrument}: the exchange stop filled: ${detail}`);
    }
    if (settled)
      this.delisted(
        `T${this.tickCount + 1} ${this.o.instrument}: the exchange delisted the market and settled the position ${wire(settled.qty)} at ${wire(settled.price)}`,
      );
    return fresh.length;
  }

  private record(f: GatewayFill): TradeRecord {
    return {
      tick: this.tickCount + 1,
      oid: f.oid,
      instrument: this.o.instrument,
      side: f.side,
      price: wire(f.price),
      quantity: wire(f.size),
      timestamp_ms: f.timeMs,
      fee: wire(f.fee),
      strategy: this.o.strategy.id,
      ...(f.cloid ? { cloid: f.cloid } : {}),
      fill_id: f.id,
    };
  }

  /**
   * The exchange stop closed the guarded position (the price gapped past the DSL's own close, or the
   * fill came while this process was down): the run stops as after its DSL close, so the strategy
   * does not re-enter at once, and the strategy's resting orders are cancelled. A fill pushed between
   * ticks gets this at once, not at the next tick.
   */
  private stopAfterBackstop(price: string, nowMs: number): Promise<void> {
    this.closedByBackstop = undefined;
    // The position's protection: never cut by a stop of the run.
    return readsSeenThrough(() => this.cancelAfterBackstop(price, nowMs));
  }

  private async cancelAfterBackstop(price: string, nowMs: number): Promise<void> {
    const open = await this.ourOpenOrders();
    if (open.length > 0) {
      const { failed } = await this.o.gateway.cancel(this.o.instrument, open);
      this.stats.total_cancelled += open.length - failed.length;
      this.log(`cancelled ${open.length - failed.length} resting order(s)`);
      // A quote that filled before its cancel (in the same instant as the stop, or since) may have
      // re-opened a position: the fills are read from the venue now, not from a stream that may lag.
      await this.freshFills();
      // The stop's own fills in that read, if any, are this close's.
      this.closedByBackstop = undefined;
    }
    const dsl = this.dsl;
    dsl?.closed(Number(price), EXCHANGE_STOP_REASON, nowMs);
    // A re-opened position gets its own guard and exchange stop (the closed one's goes); else none.
    if (dsl && !this.position.qty.isZero()) await this.followPosition(dsl, this.stats.fill_cursor.time_ms);
    else await this.backstop?.onTick("0");
    this.dslReason = EXCHANGE_STOP_REASON;
    const reopened = this.position.qty.isZero()
      ? ""
      : `; a quote filled before its cancel: position now ${wire(this.position.qty)}, left with its own exchange stop`;
    this.o.alerter?.send(
      "halt",
      `the exchange stop closed ${this.o.instrument} at ${price}; strategy stopped${reopened}`,
    );
    this.log("the exchange stop closed the position; stopping the strategy (start again to resume trading)");
    this.stopReason = "dsl_stop";
    this.stopRequested = true;
  }

  /**
   * The DSL stop sees this tick's price; on a breach it cancels our resting orders, flattens the
   * position with a reduce-only IOC order and stops the run (so the strategy cannot re-enter at
   * once). Returns true when it acted (the strategy sits this tick out).
   */
  private async guardWithDsl(dsl: RunStop, mid: Dec, nowMs: number, filled: number): Promise<boolean> {
    const close = dsl.onPrice(
      { qty: wire(this.position.qty), entry: this.position.avg.toNumber() },
      mid.toNumber(),
      nowMs,
    );
    if (!close) {
      await this.backstop?.onTick(wire(this.position.qty));
      return false;
    }
    const open = await this.ourOpenOrders();
    if (open.length > 0) {
      await this.o.gateway.cancel(this.o.instrument, open);
      this.stats.total_cancelled += open.length;
    }
    const qty = this.position.qty;
    const side = qty.isPos() ? "sell" : "buy";
    // Far enough through the book to fill at once; reduce-only, so it can never open a position.
    const limit = mid.times(side === "sell" ? 1 - DSL_CLOSE_SLIPPAGE : 1 + DSL_CLOSE_SLIPPAGE).toNumber();
    const grid = roundIntent(
      { side, price: limit, size: qty.abs().toNumber(), tif: "Ioc", reduceOnly: true, tag: "dsl_stop" },
      this.spec?.szDecimals ?? 4,
    );
    let sent = 0;
    let rejected = 0;
    // A halted market refuses the close as well: it is asked again once a minute, not every tick.
    const held = !this.refusals.mayClose(this.now());
    if (grid && !held) {
      const cloid = this.cloids.next();
      this.dslClose = { cloid, reason: `dsl_stop: ${close.reason}` };
      this.log(
        `T${this.tickCount + 1} DSL stop: ${close.reason} — closing ${wire(qty)} with a reduce-only IOC`,
      );
      const [out] = await this.o.gateway.place([
        { instrument: this.o.instrument, cloid, side, ...grid, tif: "Ioc", reduceOnly: true },
      ]);
      if (out?.status === "rejected") {
        rejected = 1;
        this.stats.total_rejected += 1;
        const wasHalted = this.refusals.halted(this.now());
        this.refusals.learn([out.message], this.now());
        if (!wasHalted && this.refusals.halted(this.now())) await this.haltedOrDelisted();
        else if (!this.refusals.halted(this.now()))
          this.log(`T${this.tickCount + 1} DSL close refused: ${out.message}; trying again next tick`);
      } else {
        sent = 1;
        this.stats.total_placed += 1;
      }
      filled += await this.syncFills();
    } else if (!grid) {
      this.log(`T${this.tickCount + 1} DSL stop: ${close.reason}, but ${wire(qty)} is below the lot size`);
    }
    if (this.position.qty.isZero()) {
      dsl.closed(mid.toNumber(), close.reason, nowMs);
      await this.backstop?.onTick("0");
      this.dslReason = close.reason;
      this.o.alerter?.send("halt", `DSL stop closed ${this.o.instrument}: ${close.reason}; strategy stopped`);
      this.log(`DSL stop closed the position; stopping the strategy (start again to resume trading)`);
      this.stopReason = "dsl_stop";
      this.stopRequested = true;
    }
    this.tickCount += 1;
    this.persist("running");
    this.report({
      tick: this.tickCount,
      mid: mid.toNumber(),
      sent,
      filled,
      cancelled: open.length,
      rejected,
      risk: this.lastMode,
    });
    return true;
  }

  /** The position's decimal mark at the last mid (while flat it is only set when read). */
  private syncMark(): void {
    if (this.lastMid > 0 && !this.position.mark.eq(this.lastMid)) this.position.mark = dec(this.lastMid);
  }

  private sessionSnapshot(): SessionSnapshot {
    this.syncMark();
    const open = !this.position.qty.isZero();
    const pnl = this.position.netPnl();
    return {
      tick_count: this.tickCount,
      total_pnl: wire(pnl),
      active_slots: open ? 1 : 0,
      total_trades: this.stats.total_filled,
    };
  }

  // ── stop ─────────────────────────────────────────────────────────────────────────────────

  private halt(reason: string): void {
    this.log(`risk hard stop: ${reason} — cancelling all orders and stopping (start with --fresh to reset)`);
    this.o.alerter?.send("halt", `risk hard stop: ${reason}; cancelling all orders and stopping`);
    this.stopReason = "halted";
    this.stopRequested = true;
  }

  /**
   * Keep the dead man's switch armed while our orders rest (renewed once half its window is gone),
   * and disarmed when none do. A venue that refuses it is reported once and not asked again.
   */
  private async keepDeadMan(nowMs: number, resting: number): Promise<void> {
    const windowMs = this.o.deadManMs ?? 0;
    const gateway = this.o.gateway;
    if (windowMs <= 0 || !gateway.scheduleCancelAll || this.deadManUnavailable) return;
    try {
      if (resting > 0 && (this.deadManAt === null || this.deadManAt - nowMs < windowMs / 2)) {
        // The exchange wants the time at least 5 s after it receives the request, by its clock; the
        // snapshot's time may lag ours, so the time is also kept that far (and a second for transit)
        // from our clock as we send.
        const at = Math.max(nowMs + windowMs, this.now() + DEAD_MAN_MIN_AHEAD_MS);
        await gateway.scheduleCancelAll(at);
        this.deadManAt = at;
      } else if (resting === 0 && this.deadManAt !== null) {
        await gateway.scheduleCancelAll(null);
        this.deadManAt = null;
      }
    } catch (e) {
      this.deadManUnavailable = true;
      this.log(
        `dead man's switch refused (${e instanceof Error ? e.message : String(e)}): resting orders would outlive a crash`,
      );
    }
  }

  private async shutdown(): Promise<void> {
    try {
      const open = await this.ourOpenOrders();
      if (open.length > 0) {
        await this.o.gateway.cancel(this.o.instrument, open);
        this.stats.total_cancelled += open.length;
        this.log(`cancelled ${open.length} resting order(s)`);
      }
      // Nothing of ours rests now: a switch left armed would later cancel orders placed by others.
      if (this.deadManAt !== null && this.o.gateway.scheduleCancelAll) {
        await this.o.gateway.scheduleCancelAll(null);
        this.deadManAt = null;
      }
      // A quote filled before its cancel: the exchange stop left resting covers what is held now.
      const before = this.position.qty;
      await this.syncFills();
      if (this.dsl && !this.position.qty.eq(before))
        await this.followPosition(this.dsl, this.stats.fill_cursor.time_ms);
    } catch (e) {
      this.log(`shutdown: could not cancel resting orders: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      this.persist(this.risk.halted ? "halted" : "stopped");
      this.store.close();
    }
  }

  private sleep(ms: number): Promise<void> {
    if (ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }

  // ── state ────────────────────────────────────────────────────────────────────────────────

  private persist(status: "running" | "stopped" | "halted"): void {
    if (status === "running" && !this.persistEveryTick) return;
    this.syncMark();
    const pos = this.position.toJson();
    this.store.save({
      tick_count: this.tickCount,
      start_time_ms: this.startTimeMs,
      strategy_id: this.o.strategy.id,
      instrument: this.o.instrument,
      positions: {
        house: { [this.o.instrument]: pos },
        agents: { [this.o.strategy.id]: { [this.o.instrument]: pos } },
      },
      risk: { limits: this.o.limits, state: this.risk },
      order_stats: this.stats,
      run: {
        status,
        pid: process.pid,
        heartbeat_ms: this.now(),
        mode: this.o.mode,
        network: this.o.network,
        tick_interval_s: this.o.tickMs / 1000,
        params: this.o.params,
        halt_reason: this.risk.halt_reason,
      },
    });
  }

  private report(r: TickReport): void {
    this.o.onTick?.(r);
    if (this.o.tickLines === false) return;
    const coin = this.o.instrument.replace(/-(PERP|USDYP)$/i, "");
    const q = this.position.qty;
    const pos = q.isZero() ? "flat" : `${q.isPos() ? "+" : ""}${wire(q)} @ ${this.position.avg.toFixed(2)}`;
    const u = this.position.unrealized();
    const rp = this.position.realized.minus(this.position.fees);
    const risk = r.risk === "ok" ? "OK" : r.risk === "reduce_only" ? "REDUCE" : "HALT";
    const time = new Date(this.now()).toISOString().slice(11, 19);
    const tail = r.skipped ? ` | skipped: ${r.skipped}` : "";
    this.log(
      `[${time}] T${r.tick} ${coin} mid=${r.mid} | pos=${pos} | uPnL=${signed(u)} rPnL=${signed(rp)} | ` +
        `${r.sent} sent ${r.filled} filled ${r.cancelled} cancelled ${r.rejected} rejected | risk: ${risk}${tail}`,
    );
  }
}

/**
 * The fills past the cursor, oldest first. A venue answers "since" inclusively, so the fills at the
 * cursor's own time come back on every call until a newer one: those already applied are skipped by id.
 */
function newSince(cursor: OrderStats["fill_cursor"], fetched: readonly GatewayFill[]): GatewayFill[] {
  // A few ids are searched directly; a Set pays off only for many fills within one millisecond.
  // (No named closure here: run from sources, tsx gives each one a name with defineProperty per call.)
  const seen = cursor.ids.length > 16 ? new Set(cursor.ids) : undefined;
  return fetched
    .filter(
      (f) =>
        f.timeMs > cursor.time_ms ||
        (f.timeMs === cursor.time_ms && !(seen ? seen.has(f.id) : cursor.ids.includes(f.id))),
    )
    .sort((a, b) => a.timeMs - b.timeMs);
}

function hasIoc(orders: readonly PlaceRequest[]): boolean {
  for (const o of orders) if (o.tif === "Ioc") return true;
  return false;
}

function signed(v: Dec): string {
  const r = v.toDecimalPlaces(4);
  return r.gte(0) ? `+${wire(r)}` : wire(r);
}

function emptyStats(): OrderStats {
  return {
    total_placed: 0,
    total_filled: 0,
    total_cancelled: 0,
    total_rejected: 0,
    fill_cursor: { time_ms: 0, ids: [] },
  };
}

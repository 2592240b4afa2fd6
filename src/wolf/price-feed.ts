import type { Alerter } from "../alerts/webhook.ts";
import type { WolfPort } from "./port.ts";

export type PriceStreamStatus = "ok" | "degraded";

export interface PriceFeedOptions {
  port: Pick<WolfPort, "mids" | "subscribeMids">;
  /** Where every price goes (streamed or polled). */
  onMids(mids: Record<string, string>): void;
  /** The coins of open positions: a silent stream matters only while their prices move. */
  guardedCoins(): string[];
  /** Overall status changed; `silentCoins` are the guarded coins polled because their stream is silent. */
  onStatus?(status: PriceStreamStatus, reason: string, silentCoins: readonly string[]): void;
  log: (line: string) => void;
  alerter?: Alerter;
  /** Poll period while degraded and a position is open, and the watchdog's period (default 1 s; at most 2 s). */
  pollMs?: number;
  /** No streamed price for this long while a guarded price moved → degraded (default 3 s). */
  silenceMs?: number;
  /** Resubscription back-off: first and longest wait (default 1 s and 30 s). */
  retryMinMs?: number;
  retryMaxMs?: number;
}

/**
 * The prices the protective path runs on: streamed mids, watched per coin. When the stream fails
 * (the connection drops, a subscription cannot be restored, not every dex could be subscribed) or
 * stays silent while a guarded coin's polled price moved, the feed turns "degraded": it polls mids
 * every `pollMs`, alerts once, and resubscribes with a growing back-off until streamed prices flow
 * again. Silence is watched per guarded coin, so one dex going quiet (a HIP-3 stream) while the main
 * dex keeps streaming is noticed too: that coin is polled every beat until it streams again.
 */
export class PriceFeed {
  /** The whole stream failed (or is silent everywhere). */
  private streamDown = false;
  /** Guarded coins whose streamed price went silent while their polled price moved. */
  private readonly silent = new Set<string>();
  /** When each coin last had a streamed price. */
  private readonly streamedAt = new Map<string, number>();
  private unsubscribe: (() => Promise<void>) | undefined;
  private connecting = false;
  private attempts = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private watchdog: NodeJS.Timeout | undefined;
  private lastStreamedAt = Date.now();
  /** When the current subscription started: a coin not streamed since is silent from then. */
  private subscribedAt = Date.now();
  /** The last price seen per coin, streamed or polled: a silent poll is compared with it. */
  private readonly lastKnown = new Map<string, string>();
  private polling = false;
  private lastSilentCheck = 0;
  private stopped = false;
  /** Bumped on every (re)subscription so callbacks of an abandoned one are ignored. */
  private generation = 0;
  private readonly pollMs: number;
  private readonly silenceMs: number;

  get status(): PriceStreamStatus {
    return this.streamDown || this.silent.size > 0 ? "degraded" : "ok";
  }

  /** Guarded coins polled because their own stream is silent, sorted. */
  degradedCoins(): string[] {
    return [...this.silent].sort();
  }

  constructor(private readonly opts: PriceFeedOptions) {
    this.pollMs = Math.min(opts.pollMs ?? 1_000, 2_000);
    this.silenceMs = opts.silenceMs ?? 3_000;
  }

  /** Subscribe (resolves after the first attempt, successful or not) and start watching. */
  async start(): Promise<void> {
    this.watchdog = setInterval(() => void this.watch(), this.pollMs);
    this.watchdog.unref();
    await this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.watchdog) clearInterval(this.watchdog);
    if (this.retryTimer) clearTimeout(this.retryTimer);
    await this.drop();
  }

  private async connect(): Promise<void> {
    if (this.stopped || this.connecting) return;
    this.connecting = true;
    const generation = ++this.generation;
    try {
      const unsubscribe = await this.opts.port.subscribeMids(
        (mids) => this.onStreamed(generation, mids),
        (reason) => this.onFailure(generation, reason),
      );
      if (this.stopped || generation !== this.generation) {
        await unsubscribe().catch(() => undefined);
        return;
      }
      this.unsubscribe = unsubscribe;
      this.lastStreamedAt = Date.now();
      this.subscribedAt = this.lastStreamedAt;
    } catch (e) {
      this.degrade(`price stream unavailable: ${(e as Error).message}`);
      this.scheduleRetry();
    } finally {
      this.connecting = false;
    }
  }

  private onStreamed(generation: number, mids: Record<string, string>): void {
    if (generation !== this.generation || this.stopped) return;
    const now = Date.now();
    this.lastStreamedAt = now;
    const before = this.status;
    let restored: string[] = [];
    for (const [coin, px] of Object.entries(mids)) {
      this.lastKnown.set(coin, px);
      this.streamedAt.set(coin, now);
      if (this.silent.delete(coin)) restored.push(coin);
    }
    if (this.streamDown) {
      this.streamDown = false;
      this.attempts = 0;
      restored = [];
      this.opts.log("price stream restored");
    } else if (restored.length > 0) this.opts.log(`price stream restored for ${restored.join(", ")}`);
    if (before === "degraded" && this.status === "ok")
      this.opts.onStatus?.("ok", "streamed prices flow again", []);
    this.opts.onMids(mids);
  }

  private onFailure(generation: number, reason: string): void {
    if (generation !== this.generation || this.stopped) return;
    this.degrade(reason);
    if (this.opts.guardedCoins().length > 0) void this.poll();
    void this.drop().then(() => this.scheduleRetry());
  }

  private async drop(): Promise<void> {
    this.generation++;
    const unsubscribe = this.unsubscribe;
    this.unsubscribe = undefined;
    if (unsubscribe) await unsubscribe().catch(() => undefined);
  }

  private scheduleRetry(): void {
    if (this.stopped || this.retryTimer) return;
    const min = this.opts.retryMinMs ?? 1_000;
    const wait = Math.min(min * 2 ** this.attempts, this.opts.retryMaxMs ?? 30_000);
    this.attempts++;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.connect();
    }, wait);
    this.retryTimer.unref();
  }

  private degrade(reason: string): void {
    if (this.streamDown) return;
    const before = this.status;
    this.streamDown = true;
    const line = `price stream degraded (${reason}): polling guarded prices every ${this.pollMs / 1000} s and resubscribing`;
    this.opts.log(line);
    this.opts.alerter?.send("price_stream", `WOLF ${line}`);
    if (before === "ok") this.opts.onStatus?.("degraded", reason, this.degradedCoins());
  }

  /** Guarded coins whose stream said nothing for them: polled every beat until it does again. */
  private silenceOf(coins: string[], quietForS: number): void {
    const before = this.status;
    for (const c of coins) this.silent.add(c);
    const reason = `no streamed price for ${coins.join(", ")} for ${quietForS} s while it moved (other prices stream)`;
    const line = `price stream degraded (${reason}): polling them every ${this.pollMs / 1000} s`;
    this.opts.log(line);
    this.opts.alerter?.send("price_stream", `WOLF ${line}`);
    if (before === "ok") this.opts.onStatus?.("degraded", reason, this.degradedCoins());
  }

  /**
   * Every beat: poll while anything is degraded. Then, per guarded coin, a streamed price older than
   * the silence period is checked against a poll (once per silence period: a quiet market is not a
   * dead stream); a coin that moved meanwhile is silent.
   */
  private async watch(): Promise<void> {
    if (this.stopped) return;
    const guarded = this.opts.guardedCoins();
    if (this.streamDown) {
      // Nothing open, nothing to guard: the ticks read prices anyway, and a poll a second would
      // spend most of WOLF's request weight (every dex's mids) that its scans need.
      if (guarded.length > 0) await this.poll();
      return;
    }
    const now = Date.now();
    const quiet = guarded.filter(
      (c) => !this.silent.has(c) && now - (this.streamedAt.get(c) ?? this.subscribedAt) >= this.silenceMs,
    );
    const checkQuiet = quiet.length > 0 && now - this.lastSilentCheck >= this.silenceMs;
    if (!checkQuiet) {
      if (this.silent.size > 0) await this.poll();
      return;
    }
    this.lastSilentCheck = now;
    const known = new Map(quiet.map((c) => [c, this.lastKnown.get(c)]));
    const mids = await this.poll();
    // The stream may have failed (and said so) while the poll was out.
    if (!mids || this.streamDown) return;
    // Every push of a dex carries all its coins: a coin the stream never gave while other prices
    // stream is on a silent dex, even before its polled price is seen to move.
    const streaming = Date.now() - this.lastStreamedAt < this.silenceMs;
    const moved = quiet.filter((c) => {
      if (mids[c] === undefined) return false;
      const before = known.get(c);
      if (before === undefined) return streaming && !this.streamedAt.has(c);
      return mids[c] !== before;
    });
    if (moved.length === 0) return; // a quiet market, not a dead stream
    const quietForS = Math.round((Date.now() - this.lastStreamedAt) / 1000);
    if (Date.now() - this.lastStreamedAt >= this.silenceMs) {
      // Nothing streams at all: the stream is dead, resubscribe.
      this.onFailure(this.generation, `no streamed price for ${quietForS} s while ${moved.join(", ")} moved`);
      return;
    }
    const oldest = Math.min(...moved.map((c) => this.streamedAt.get(c) ?? this.subscribedAt));
    this.silenceOf(moved, Math.round((Date.now() - oldest) / 1000));
  }

  private async poll(): Promise<Record<string, string> | undefined> {
    if (this.polling) return undefined;
    this.polling = true;
    try {
      const mids = await this.opts.port.mids();
      if (this.stopped) return mids;
      for (const [coin, px] of Object.entries(mids)) this.lastKnown.set(coin, px);
      this.opts.onMids(mids);
      return mids;
    } catch (e) {
      this.opts.log(`price poll failed: ${(e as Error).message}`);
      return undefined;
    } finally {
      this.polling = false;
    }
  }
}

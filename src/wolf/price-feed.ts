import type { Alerter } from "../alerts/webhook.ts";
import type { WolfPort } from "./port.ts";

export type PriceStreamStatus = "ok" | "degraded";

export interface PriceFeedOptions {
  port: Pick<WolfPort, "mids" | "subscribeMids">;
  /** Where every price goes (streamed or polled). */
  onMids(mids: Record<string, string>): void;
  /** The coins of open positions: a silent stream matters only while their prices move. */
  guardedCoins(): string[];
  onStatus?(status: PriceStreamStatus, reason: string): void;
  log: (line: string) => void;
  alerter?: Alerter;
  /** Poll period while degraded, and the watchdog's period (default 1 s; at most 2 s). */
  pollMs?: number;
  /** No streamed price for this long while a guarded price moved → degraded (default 3 s). */
  silenceMs?: number;
  /** Resubscription back-off: first and longest wait (default 1 s and 30 s). */
  retryMinMs?: number;
  retryMaxMs?: number;
}

/**
 * The prices the protective path runs on: streamed mids, watched. When the stream fails (the
 * connection drops, a subscription cannot be restored, not every dex could be subscribed) or stays
 * silent while a guarded coin's polled price moved, the feed turns "degraded": it polls mids every
 * `pollMs`, alerts once, and resubscribes with a growing back-off until streamed prices flow again.
 */
export class PriceFeed {
  status: PriceStreamStatus = "ok";
  private unsubscribe: (() => Promise<void>) | undefined;
  private connecting = false;
  private attempts = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private watchdog: NodeJS.Timeout | undefined;
  private lastStreamedAt = Date.now();
  /** The last price seen per coin, streamed or polled: a silent poll is compared with it. */
  private readonly lastKnown = new Map<string, string>();
  private polling = false;
  private lastSilentCheck = 0;
  private stopped = false;
  /** Bumped on every (re)subscription so callbacks of an abandoned one are ignored. */
  private generation = 0;
  private readonly pollMs: number;
  private readonly silenceMs: number;

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
    } catch (e) {
      this.degrade(`price stream unavailable: ${(e as Error).message}`);
      this.scheduleRetry();
    } finally {
      this.connecting = false;
    }
  }

  private onStreamed(generation: number, mids: Record<string, string>): void {
    if (generation !== this.generation || this.stopped) return;
    this.lastStreamedAt = Date.now();
    for (const [coin, px] of Object.entries(mids)) this.lastKnown.set(coin, px);
    if (this.status === "degraded") this.recover();
    this.opts.onMids(mids);
  }

  private onFailure(generation: number, reason: string): void {
    if (generation !== this.generation || this.stopped) return;
    this.degrade(reason);
    void this.poll();
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
    if (this.status === "degraded") return;
    this.status = "degraded";
    const line = `price stream degraded (${reason}): polling guarded prices every ${this.pollMs / 1000} s and resubscribing`;
    this.opts.log(line);
    this.opts.alerter?.send("price_stream", `WOLF ${line}`);
    this.opts.onStatus?.("degraded", reason);
  }

  private recover(): void {
    this.status = "ok";
    this.attempts = 0;
    this.opts.log("price stream restored");
    this.opts.onStatus?.("ok", "streamed prices flow again");
  }

  /** Degraded: poll. Streaming but silent: check whether a guarded price moved meanwhile. */
  private async watch(): Promise<void> {
    if (this.stopped) return;
    if (this.status === "degraded") {
      await this.poll();
      return;
    }
    const guarded = this.opts.guardedCoins();
    const now = Date.now();
    if (guarded.length === 0 || now - this.lastStreamedAt < this.silenceMs) return;
    // A quiet market is checked once per silence period, not on every watchdog beat.
    if (now - this.lastSilentCheck < this.silenceMs) return;
    this.lastSilentCheck = now;
    const known = new Map(guarded.map((c) => [c, this.lastKnown.get(c)]));
    const mids = await this.poll();
    // The stream may have failed (and said so) while the poll was out.
    if (!mids || (this.status as PriceStreamStatus) === "degraded") return;
    const moved = guarded.filter((c) => {
      const before = known.get(c);
      return before !== undefined && mids[c] !== undefined && mids[c] !== before;
    });
    if (moved.length === 0) return; // a quiet market, not a dead stream
    this.onFailure(
      this.generation,
      `no streamed price for ${Math.round((Date.now() - this.lastStreamedAt) / 1000)} s while ${moved.join(", ")} moved`,
    );
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

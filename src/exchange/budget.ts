import { MinuteWindow } from "../core/minute-window.ts";
import { BrokerBudget } from "./broker-budget.ts";

/**
 * One request-weight budget per process and API server, shaped like Hyperliquid's per-IP limit (1200 weight per
 * minute): weight spent leaves the budget's 60 s window only as it ages out, so no minute ever spends
 * more than `weightPerMinute` (a refilling bucket would let a full start plus a minute's refill through,
 * twice that, which the exchange may refuse). Callers wait (in arrival order) until their request's
 * weight is available instead of being refused with 429 by the exchange.
 */

interface RateBudgetOptions {
  /** Weight that may be spent in any minute. Default 1200 (Hyperliquid's per-IP limit). */
  weightPerMinute?: number;
  /**
   * Share of the minute reads may not spend (default 0; the process-wide budget keeps 0.2): closes
   * and backstop changes, which spend at once, always find it.
   */
  reserveShare?: number;
  /** Back-off after a 429: first and longest wait (default 500 ms and 10 s), with jitter. */
  limitedMinMs?: number;
  limitedMaxMs?: number;
  now?: () => number;
  /** Waits `ms`; may end early once `signal` aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
}

/**
 * Background reads (bulk candle history) stop short of the reserve by a margin for every other read:
 * a quarter of what those spent in the window (the next 15 s at their pace), and never less than
 * this share of the minute. Whatever the others leave, the background may use.
 */
const BACKGROUND_MARGIN_SHARE = 0.1;

/**
 * The window, in seconds: the exchange's 60, plus one so that a request sent at the very end of a
 * second and counted by the server in the next is still inside this budget's window.
 */
const WINDOW_SECONDS = 61;

/**
 * What the exchange transport needs of a weight budget: this process's own (RateBudget), or one
 * shared with the other processes of the machine through a broker (BrokerBudget).
 */
export interface WeightBudget {
  /** Milliseconds left of the back-off after a 429 (0 when none). */
  limitedForMs(): number;
  /** The exchange answered 429: returns the back-off it starts. */
  limited(retryAfterMs?: number): number;
  answered(): void;
  failed(): void;
  /** Waits until `weight` may be spent, and spends it. */
  take(weight: number, opts?: TakeOptions): Promise<void>;
  /** Spends weight at once (closes, backstops, weight learned from an answer). */
  charge(weight: number, opts?: { background?: boolean }): void;
}

export interface TakeOptions {
  background?: boolean;
  /**
   * A stopping run's read to cancel its quotes or book its last fills: on its own budget it is a read
   * like another; through the broker it also asks the IP's room and takes the sooner grant.
   */
  shutdown?: boolean;
  /** Gives up the turn (rejects, spends nothing) once aborted: a waiter that went away. */
  signal?: AbortSignal;
}

/** A timer cleared when `signal` aborts: a waiter that went away must not keep the process up. */
function realSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}

/**
 * Besides the window, the budget remembers the exchange's 429s: after one, nothing but a close or a
 * backstop change is sent until a jittered, doubling back-off has passed, and then reads go out one
 * at a time (a probe) until one is answered — so a storm of 429s never raises the request rate.
 */
export class RateBudget implements WeightBudget {
  readonly capacity: number;
  /** Weight reads leave unspent in the window. */
  readonly reserve: number;
  /** Weight spent over the window. */
  private readonly windowSpent = new MinuteWindow(WINDOW_SECONDS);
  /** Of that, what reads other than background ones spent. */
  private readonly windowForeground = new MinuteWindow(WINDOW_SECONDS);
  private queue: Promise<void> = Promise.resolve();
  private backgroundQueue: Promise<void> = Promise.resolve();
  private readonly now: () => number;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly random: () => number;
  private readonly limitedMinMs: number;
  private readonly limitedMaxMs: number;
  /** 429s in a row, and until when nothing but critical requests go out. */
  private strikes = 0;
  private limitedUntilMs = 0;
  /** After a 429: a read is out as the probe; the others wait for its answer. */
  private probing = false;
  private probeWaiters: (() => void)[] = [];

  constructor(opts: RateBudgetOptions = {}) {
    const perMinute = opts.weightPerMinute ?? 1200;
    if (!(perMinute > 0)) throw new RangeError("weightPerMinute must be positive");
    this.capacity = perMinute;
    this.reserve = perMinute * Math.min(Math.max(opts.reserveShare ?? 0, 0), 0.9);
    this.now = opts.now ?? Date.now;
    this.sleep = opts.sleep ?? realSleep;
    this.random = opts.random ?? Math.random;
    this.limitedMinMs = opts.limitedMinMs ?? 500;
    this.limitedMaxMs = opts.limitedMaxMs ?? 10_000;
  }

  /** Milliseconds left of the back-off after a 429 (0 when none). */
  limitedForMs(): number {
    return Math.max(0, this.limitedUntilMs - this.now());
  }

  /**
   * The exchange answered 429: back off for a jittered, doubling wait (in [cap/2, cap], never less
   * than the server's Retry-After), shared by every caller of this budget.
   */
  limited(retryAfterMs = 0): number {
    this.strikes += 1;
    const cap = Math.min(this.limitedMaxMs, this.limitedMinMs * 2 ** (this.strikes - 1));
    const wait = Math.max(Math.floor(cap / 2 + (this.random() * cap) / 2), retryAfterMs);
    this.limitedUntilMs = Math.max(this.limitedUntilMs, this.now() + wait);
    this.endProbe();
    return wait;
  }

  /** A request was answered (not 429): the storm, if any, is over. */
  answered(): void {
    this.strikes = 0;
    this.endProbe();
  }

  /** A request failed otherwise (network): the probe, if it was one, is over, the strikes stay. */
  failed(): void {
    this.endProbe();
  }

  private endProbe(): void {
    this.probing = false;
    for (const wake of this.probeWaiters.splice(0)) wake();
  }

  /** Weight available right now (may be negative after a post-hoc charge). */
  available(): number {
    return this.capacity - this.spentInWindow();
  }

  /**
   * A read: wait until `weight` is available above the reserve (and any 429 back-off is over), then
   * spend it. Waiters are served first come, first served.
   */
  take(weight: number, opts: TakeOptions = {}): Promise<void> {
    const need = Math.min(Math.max(weight, 0), this.capacity);
    if (opts.background) {
      // Background reads queue apart and leave the others a margin, so those never wait behind them.
      const turn = this.backgroundQueue.then(() => this.waitFor(need, true, opts.signal));
      this.backgroundQueue = turn.catch(() => undefined);
      return leftWhenAborted(turn, opts.signal);
    }
    const turn = this.queue.then(() => this.waitFor(need, false, opts.signal));
    this.queue = turn.catch(() => undefined);
    return leftWhenAborted(turn, opts.signal);
  }

  /** Spend weight learned only after the answer (e.g. per 20 fills returned); may take the window past the budget. */
  charge(weight: number, opts: { background?: boolean } = {}): void {
    this.spend(Math.max(weight, 0), !opts.background);
  }

  private spend(weight: number, foreground: boolean): void {
    const now = this.now();
    this.windowSpent.add(weight, now);
    if (foreground) this.windowForeground.add(weight, now);
  }

  /** Weight spent in the window ending now (only the foreground's, when asked). */
  private spentInWindow(foregroundOnly = false): number {
    return (foregroundOnly ? this.windowForeground : this.windowSpent).total(this.now());
  }

  /** What background reads leave unspent above the reserve (see BACKGROUND_MARGIN_SHARE). */
  private backgroundMargin(): number {
    return Math.max(this.capacity * BACKGROUND_MARGIN_SHARE, this.spentInWindow(true) / 4);
  }

  /** Milliseconds until the window has room for `need` above `floor` (0 when it has now). */
  private windowWaitMs(need: number, floor: number): number {
    const nowMs = this.now();
    const k = this.windowSpent.secondsUntil((left) => this.capacity - left - need >= floor, nowMs);
    return k === 0 ? 0 : (Math.floor(nowMs / 1000) + k) * 1000 - nowMs;
  }

  private async waitFor(need: number, background: boolean, signal?: AbortSignal): Promise<void> {
    for (;;) {
      signal?.throwIfAborted();
      const limited = this.limitedForMs();
      if (limited > 0) {
        await this.pause(limited, signal);
        continue;
      }
      if (this.strikes > 0) {
        if (this.probing) {
          await new Promise<void>((resolve) => {
            const done = () => {
              signal?.removeEventListener("abort", done);
              resolve();
            };
            this.probeWaiters.push(done);
            signal?.addEventListener("abort", done, { once: true });
          });
          continue;
        }
      }
      // The reserve is kept for critical requests, unless a minute could never hold both.
      const kept = background ? this.reserve + this.backgroundMargin() : this.reserve;
      const floor = need + kept <= this.capacity ? kept : 0;
      const wait = this.windowWaitMs(need, floor);
      if (wait === 0) {
        this.spend(need, !background);
        if (this.strikes > 0) this.probing = true;
        return;
      }
      await this.pause(wait, signal);
    }
  }

  /** A sleep cut short when `signal` aborts, so a waiter that went away does not hold up the queue. */
  private pause(ms: number, signal?: AbortSignal): Promise<void> {
    if (!signal) return this.sleep(ms);
    return new Promise<void>((resolve) => {
      const done = () => {
        signal.removeEventListener("abort", done);
        resolve();
      };
      signal.addEventListener("abort", done, { once: true });
      this.sleep(ms, signal).then(done);
    });
  }
}

/**
 * `turn`, or a rejection as soon as `signal` aborts: a waiter that went away leaves the queue at once
 * instead of waiting behind the others; its turn, when it comes, spends nothing (waitFor checks).
 */
function leftWhenAborted(turn: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return turn;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<void>((resolve, reject) => {
    const abandon = () => reject(signal.reason);
    signal.addEventListener("abort", abandon, { once: true });
    turn.then(
      () => {
        signal.removeEventListener("abort", abandon);
        resolve();
      },
      (err: unknown) => {
        signal.removeEventListener("abort", abandon);
        reject(err);
      },
    );
  });
}

const shared = new Map<string, WeightBudget>();

/** Share of the process-wide budget that reads leave for closes and backstop changes. */
export const CRITICAL_RESERVE_SHARE = 0.2;

/**
 * A server on this machine (the sim world) is shared by every process of the machine, so no single
 * client's budget can keep them all within its per-IP limit: this budget only guards against runaway
 * loops, and the sim's 429 (with the back-off it starts) paces the rest. `hl up` gives each of its
 * processes its part of the 1200 instead (HL_RATE_WEIGHT_PER_MIN).
 */
const LOCAL_WEIGHT_PER_MIN = 120_000;

function isLoopbackUrl(apiUrl: string): boolean {
  try {
    const host = new URL(apiUrl).hostname;
    return host === "localhost" || host.startsWith("127.") || host === "[::1]";
  } catch {
    return false;
  }
}

/**
 * The process-wide budget for one API base URL (mainnet, testnet and a sim world are separate
 * servers with separate limits). `HL_RATE_WEIGHT_PER_MIN` changes its size (read on first use).
 * With `HL_WEIGHT_BROKER` (a Unix socket path; `hl up` sets it) the machine's weight broker keeps
 * the budget for every process that shares the IP, and this process's own budget of
 * `HL_RATE_WEIGHT_PER_MIN` is the fallback should the broker be gone.
 */
export function sharedRateBudget(
  apiUrl: string,
  env: Record<string, string | undefined> = process.env,
): WeightBudget {
  let budget = shared.get(apiUrl);
  if (!budget) {
    const raw = env.HL_RATE_WEIGHT_PER_MIN;
    const fallback = isLoopbackUrl(apiUrl) ? LOCAL_WEIGHT_PER_MIN : 1200;
    const perMinute = raw ? Number(raw) : fallback;
    const own = new RateBudget({
      weightPerMinute: Number.isFinite(perMinute) && perMinute > 0 ? perMinute : fallback,
      reserveShare: CRITICAL_RESERVE_SHARE,
    });
    const socketPath = env.HL_WEIGHT_BROKER;
    budget =
      socketPath && socketPath !== "off" ? new BrokerBudget({ socketPath, api: apiUrl, fallback: own }) : own;
    shared.set(apiUrl, budget);
  }
  return budget;
}

/** Info requests Hyperliquid weighs at 2; userRole weighs 60; every other info request 20. */
const LIGHT_INFO = new Set([
  "l2Book",
  "allMids",
  "clearinghouseState",
  "orderStatus",
  "spotClearinghouseState",
  "exchangeStatus",
]);
/** Info requests that cost one more weight per 20 items returned. */
const PER_20_ITEMS = new Set([
  "recentTrades",
  "historicalOrders",
  "userFills",
  "userFillsByTime",
  "fundingHistory",
  "userFunding",
  "userNonFundingLedgerUpdates",
  "twapHistory",
  "userTwapSliceFills",
  "userTwapSliceFillsByTime",
  "delegatorHistory",
  "delegatorRewards",
  "validatorStats",
]);

function field(payload: unknown, key: string): unknown {
  return typeof payload === "object" && payload !== null
    ? (payload as Record<string, unknown>)[key]
    : undefined;
}

/** Weight charged before sending a request. */
export function requestWeight(endpoint: "info" | "exchange" | "explorer", payload: unknown): number {
  if (endpoint === "explorer") return 40;
  if (endpoint === "exchange") {
    const action = field(payload, "action");
    const batch = field(action, "orders") ?? field(action, "cancels") ?? field(action, "modifies");
    const length = Array.isArray(batch) ? batch.length : 1;
    return 1 + Math.floor(length / 40);
  }
  const type = field(payload, "type");
  if (typeof type === "string" && LIGHT_INFO.has(type)) return 2;
  if (type === "userRole") return 60;
  return 20;
}

/** Extra weight owed once the answer's size is known (per 20 items, or per 60 candles). */
export function responseWeight(
  endpoint: "info" | "exchange" | "explorer",
  payload: unknown,
  response: unknown,
): number {
  if (endpoint !== "info" || !Array.isArray(response)) return 0;
  const type = field(payload, "type");
  if (type === "candleSnapshot") return Math.floor(response.length / 60);
  if (typeof type === "string" && PER_20_ITEMS.has(type)) return Math.floor(response.length / 20);
  return 0;
}

/**
 * One request-weight budget per process and API server, shaped like Hyperliquid's per-IP limit (1200 weight per
 * minute): a token bucket that refills continuously. Callers wait (in arrival order) until their
 * request's weight is available instead of being refused with 429 by the exchange.
 */

export interface RateBudgetOptions {
  /** Weight that refills per minute; also the bucket size. Default 1200 (Hyperliquid's per-IP limit). */
  weightPerMinute?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

const realSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export class RateBudget {
  readonly capacity: number;
  private tokens: number;
  private last: number;
  private queue: Promise<void> = Promise.resolve();
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly perMs: number;

  constructor(opts: RateBudgetOptions = {}) {
    const perMinute = opts.weightPerMinute ?? 1200;
    if (!(perMinute > 0)) throw new RangeError("weightPerMinute must be positive");
    this.capacity = perMinute;
    this.perMs = perMinute / 60_000;
    this.now = opts.now ?? Date.now;
    this.sleep = opts.sleep ?? realSleep;
    this.tokens = perMinute;
    this.last = this.now();
  }

  /** Weight available right now (may be negative after a post-hoc charge). */
  available(): number {
    this.refill();
    return this.tokens;
  }

  /** Wait until `weight` is available, then spend it. Waiters are served first come, first served. */
  take(weight: number): Promise<void> {
    const need = Math.min(Math.max(weight, 0), this.capacity);
    const turn = this.queue.then(() => this.waitFor(need));
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  /** Spend weight learned only after the answer (e.g. per 20 fills returned); may push the bucket into debt. */
  charge(weight: number): void {
    this.refill();
    this.tokens -= Math.max(weight, 0);
  }

  private async waitFor(need: number): Promise<void> {
    for (;;) {
      this.refill();
      if (this.tokens >= need) {
        this.tokens -= need;
        return;
      }
      await this.sleep(Math.ceil((need - this.tokens) / this.perMs));
    }
  }

  private refill(): void {
    const t = this.now();
    if (t > this.last) {
      this.tokens = Math.min(this.capacity, this.tokens + (t - this.last) * this.perMs);
      this.last = t;
    }
  }
}

const shared = new Map<string, RateBudget>();

/**
 * A server on this machine (the sim world) is not Hyperliquid's per-IP limit; its budget only
 * guards against runaway loops, so fast paper ticks are not throttled.
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
 */
export function sharedRateBudget(
  apiUrl: string,
  env: Record<string, string | undefined> = process.env,
): RateBudget {
  let budget = shared.get(apiUrl);
  if (!budget) {
    const raw = env.HL_RATE_WEIGHT_PER_MIN;
    const fallback = isLoopbackUrl(apiUrl) ? LOCAL_WEIGHT_PER_MIN : 1200;
    const perMinute = raw ? Number(raw) : fallback;
    budget = new RateBudget({
      weightPerMinute: Number.isFinite(perMinute) && perMinute > 0 ? perMinute : fallback,
    });
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

import { HttpRequestError, HttpTransport, type IRequestTransport } from "@nktkas/hyperliquid";
import { Agent } from "undici";
import { isInBackground } from "./background.ts";
import { requestWeight, responseWeight, type WeightBudget } from "./budget.ts";
import { ExchangeError, NetworkError, RateLimitedError, RejectedError, TimeoutError } from "./errors.ts";
import { isShutdownRead, readStopSignal } from "./stoppable-reads.ts";

type Endpoint = "info" | "exchange" | "explorer";

export interface RetryPolicy {
  /** Total tries, first one included. */
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

const DEFAULT_RETRY: RetryPolicy = { attempts: 4, baseDelayMs: 250, maxDelayMs: 4_000 };

interface ResilientTransportOptions {
  apiUrl: string;
  isTestnet: boolean;
  budget: WeightBudget;
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  /**
   * Source address of the connections (e.g. 127.0.0.2): the exchange counts request weight per
   * client address, so workers on one machine with their own addresses have their own limits.
   */
  localAddress?: string;
  /** Injected for tests; default Math.random / setTimeout. */
  random?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** What went wrong with one attempt, and whether trying again can help. */
interface Failure {
  error: ExchangeError;
  retry: boolean;
  /** Server-suggested wait (Retry-After), if any. */
  waitMs?: number;
  /** The exchange answered 429. */
  limited?: boolean;
}

const realSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The SDK's HTTP transport behind the shared weight budget, with bounded jittered retries and typed
 * errors. Every InfoClient / ExchangeClient of the process talks through one of these, so the SDK's
 * own calls (and the escape hatch `client.sdk`) get the same behaviour.
 *
 * Retries: info calls retry on 429, 5xx, network errors and timeouts. Exchange calls retry only when
 * the request certainly was not processed (429, connection refused): a signed action that may have
 * landed is never re-sent (its nonce would be refused anyway, hiding the first outcome).
 */
export class ResilientTransport implements IRequestTransport {
  readonly isTestnet: boolean;
  readonly apiUrl: string;
  private readonly http: HttpTransport;
  private readonly budget: WeightBudget;
  private readonly retry: RetryPolicy;
  private readonly timeoutMs: number;
  private readonly random: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly dispatcher: Agent | undefined;

  constructor(opts: ResilientTransportOptions) {
    this.isTestnet = opts.isTestnet;
    this.apiUrl = opts.apiUrl;
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.dispatcher = opts.localAddress ? new Agent({ localAddress: opts.localAddress }) : undefined;
    this.http = new HttpTransport({
      apiUrl: opts.apiUrl,
      isTestnet: opts.isTestnet,
      timeout: this.timeoutMs,
      // Node's fetch takes an undici dispatcher beside the standard RequestInit fields.
      fetchOptions: this.dispatcher ? ({ dispatcher: this.dispatcher } as unknown as RequestInit) : undefined,
    });
    this.budget = opts.budget;
    this.retry = { ...DEFAULT_RETRY, ...opts.retry };
    this.random = opts.random ?? Math.random;
    this.sleep = opts.sleep ?? realSleep;
  }

  async request<T>(endpoint: Endpoint, payload: unknown, signal?: AbortSignal): Promise<T> {
    const label = describe(endpoint, payload);
    const critical = endpoint === "exchange" && isProtective(payload);
    const shutdown = endpoint !== "exchange" && isShutdownRead();
    const background = endpoint === "info" && !shutdown && isInBackground();
    // A read for a run that is stopping is given up, whether it waits for weight or for its answer.
    const stop = endpoint === "exchange" ? undefined : readStopSignal();
    if (stop) signal = signal ? AbortSignal.any([stop, signal]) : stop;
    for (let attempt = 1; ; attempt++) {
      if (endpoint === "exchange") {
        // An entry (or any action that adds risk) is held back while the exchange is refusing us:
        // what little it still accepts (per address: one action per 10 s) is kept for protection.
        const limited = this.budget.limitedForMs();
        if (!critical && limited > 0 && attempt === 1)
          throw new RateLimitedError(
            `rate limited by the exchange: ${label} held back for ${Math.ceil(limited / 1000)} s (closes and stops go first)`,
          );
        // Orders (a protective close above all) never queue behind reads waiting for weight: they
        // spend theirs at once, ahead of every waiter, out of the share reads leave (an action weighs 1).
        this.budget.charge(requestWeight(endpoint, payload));
      } else {
        try {
          await this.budget.take(requestWeight(endpoint, payload), {
            background,
            ...(shutdown ? { shutdown } : {}),
            ...(signal ? { signal } : {}),
          });
        } catch (err) {
          if (!signal?.aborted) throw err;
          throw new ExchangeError(`${label} given up: its caller stopped while it waited for weight`, {
            cause: err,
          });
        }
      }
      let body: unknown;
      try {
        body = await this.http.request<unknown>(endpoint, payload, signal);
      } catch (err) {
        const failure = this.classify(err, endpoint, label, signal);
        // A 429 backs off every caller of the budget (reads wait in take(), entries are held back).
        const wait = failure.limited ? this.budget.limited(failure.waitMs) : undefined;
        if (!failure.limited) this.budget.failed();
        if (!failure.retry || attempt >= this.retry.attempts) throw failure.error;
        // Reads wait for the back-off in take(); an action waits here before it is sent again.
        if (wait === undefined) await this.sleep(this.backoff(attempt));
        else if (endpoint === "exchange") await this.sleep(this.budget.limitedForMs());
        continue;
      }
      this.budget.answered();
      this.budget.charge(responseWeight(endpoint, payload, body), { background });
      if (endpoint === "exchange") assertAccepted(body);
      return body as T;
    }
  }

  /** Close the connections of a transport with its own source address. */
  async close(): Promise<void> {
    await this.dispatcher?.close();
  }

  /** Full jitter: uniform in [0, min(max, base·2^(attempt-1))]. */
  private backoff(attempt: number): number {
    const cap = Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** (attempt - 1));
    return Math.floor(this.random() * cap);
  }

  private classify(err: unknown, endpoint: Endpoint, label: string, signal?: AbortSignal): Failure {
    const where = `${label} at ${this.apiUrl}`;
    if (err instanceof HttpRequestError && err.response) {
      const status = err.response.status;
      const detail = bodyDetail(err.message);
      if (status === 429) {
        return {
          error: new RateLimitedError(`rate limited by the exchange (${where})`),
          retry: true,
          limited: true,
          waitMs: retryAfterMs(err.response, this.retry.maxDelayMs),
        };
      }
      if (status >= 500) {
        return {
          error: new NetworkError(`exchange error HTTP ${status} (${where})${detail}`),
          retry: endpoint !== "exchange",
        };
      }
      if (status >= 400)
        return {
          error: new RejectedError(`${detail.slice(2) || `HTTP ${status}`} (${where})`),
          retry: false,
        };
      return { error: new NetworkError(`unexpected reply, not JSON (${where})${detail}`), retry: false };
    }
    const cause = err instanceof Error ? err.cause : undefined;
    if (signal?.aborted)
      return { error: new ExchangeError(`request aborted (${where})`, { cause: err }), retry: false };
    if (isTimeout(cause)) {
      return {
        error: new TimeoutError(`no answer within ${this.timeoutMs} ms (${where})`),
        retry: endpoint !== "exchange",
      };
    }
    const code = errnoCode(cause);
    const refused = code === "ECONNREFUSED";
    return {
      error: new NetworkError(`cannot reach the exchange (${where})${code ? `: ${code}` : ""}`),
      retry: endpoint !== "exchange" || refused,
    };
  }
}

/**
 * Actions that protect a position: cancels and modifies (a backstop ratcheted or removed), the dead
 * man's switch, and orders that are all reduce-only (a close, a stop). They keep going out while
 * the exchange rate-limits us; an order that may add risk does not.
 */
function isProtective(payload: unknown): boolean {
  const action = (typeof payload === "object" && payload !== null ? payload : {}) as {
    action?: { type?: unknown; orders?: unknown };
  };
  const type = action.action?.type;
  if (type === "order") {
    const orders = action.action?.orders;
    return (
      Array.isArray(orders) &&
      orders.length > 0 &&
      orders.every((o) => (o as { r?: unknown } | null)?.r === true)
    );
  }
  return (
    type === "cancel" ||
    type === "cancelByCloid" ||
    type === "modify" ||
    type === "batchModify" ||
    type === "scheduleCancel"
  );
}

/** Throw RejectedError when the exchange refused the action (top level) or any order of a batch. */
function assertAccepted(body: unknown): void {
  if (typeof body !== "object" || body === null) return;
  const reply = body as { status?: unknown; response?: unknown };
  if (reply.status === "err") {
    throw new RejectedError(
      typeof reply.response === "string" ? reply.response : JSON.stringify(reply.response),
      body,
    );
  }
  const data = (reply.response as { data?: { statuses?: unknown; status?: unknown } } | undefined)?.data;
  const single = errorOf(data?.status);
  if (single !== undefined) throw new RejectedError(single, body, [single]);
  if (Array.isArray(data?.statuses)) {
    const errors = data.statuses.map(errorOf);
    const present = errors.filter((e): e is string => e !== undefined);
    if (present.length > 0) throw new RejectedError(present.join("; "), body, errors);
  }
}

function errorOf(status: unknown): string | undefined {
  if (
    typeof status === "object" &&
    status !== null &&
    typeof (status as { error?: unknown }).error === "string"
  ) {
    return (status as { error: string }).error;
  }
  return undefined;
}

function describe(endpoint: Endpoint, payload: unknown): string {
  const obj = (typeof payload === "object" && payload !== null ? payload : {}) as Record<string, unknown>;
  if (endpoint === "info") return `info ${String(obj.type ?? "?")}`;
  const action = obj.action as Record<string, unknown> | undefined;
  return `${endpoint} ${String(action?.type ?? "?")}`;
}

/** HttpRequestError messages read "STATUS TEXT - body"; keep the body, one line, bounded. */
function bodyDetail(message: string): string {
  const idx = message.indexOf(" - ");
  if (idx < 0) return "";
  const text = message
    .slice(idx + 3)
    .replace(/\s+/g, " ")
    .trim();
  let detail = text;
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === "object" && parsed !== null) {
      const p = parsed as Record<string, unknown>;
      const msg = p.error ?? p.message ?? p.response;
      if (typeof msg === "string") detail = msg;
    } else if (typeof parsed === "string") detail = parsed;
  } catch {
    // not JSON: keep the text as it came
  }
  return detail ? `: ${detail.slice(0, 300)}` : "";
}

function retryAfterMs(response: Response, maxMs: number): number | undefined {
  const raw = response.headers.get("retry-after");
  if (!raw) return undefined;
  const seconds = Number(raw);
  return Number.isFinite(seconds) && seconds >= 0 ? Math.min(seconds * 1000, maxMs) : undefined;
}

function isTimeout(cause: unknown): boolean {
  return cause instanceof Error && (cause.name === "TimeoutError" || cause.name === "AbortError");
}

function errnoCode(cause: unknown): string | undefined {
  let current: unknown = cause;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    const code = (current as NodeJS.ErrnoException).code;
    if (typeof code === "string") return code;
    current = current.cause;
  }
  return undefined;
}

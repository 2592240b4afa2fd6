import { UserError } from "../core/errors.ts";

/**
 * Operator alerts: the events someone running money wants to hear about at once — a risk halt, the
 * daily loss limit, a position closed, the trading job crashing — posted as JSON to a webhook
 * (`HL_ALERT_WEBHOOK`). The body carries both `text` (Slack) and `content` (Discord), so either kind of
 * incoming webhook shows the line as it is. Delivery never blocks trading: each alert is sent in the
 * background with a timeout and a few retries, and `flush()` waits for what is in flight before exit.
 */

export const ALERT_EVENTS = [
  "halt",
  "reduce_only",
  "daily_loss",
  "exit",
  "entry",
  "crash",
  "gave_up",
  "price_stream",
  "paused",
  "protect_only",
  "dead_man",
  "backstop",
  "liquidation",
] as const;
export type AlertEvent = (typeof ALERT_EVENTS)[number];

/** Sent unless HL_ALERT_EVENTS says otherwise (entries are frequent, so they are opt-in). */
export const DEFAULT_ALERT_EVENTS: readonly AlertEvent[] = [
  "halt",
  "reduce_only",
  "daily_loss",
  "exit",
  "crash",
  "gave_up",
  "price_stream",
  "paused",
  "protect_only",
  "dead_man",
  "backstop",
  "liquidation",
];

export interface Alerter {
  send(event: AlertEvent, text: string, fields?: Record<string, string | number>): void;
  /** Wait (at most `timeoutMs`) for alerts still being delivered. */
  flush(timeoutMs?: number): Promise<void>;
}

interface AlerterOptions {
  url: string;
  events: readonly AlertEvent[];
  /** Who speaks, e.g. "hl run simple_mm ETH-PERP (testnet)". */
  source: string;
  timeoutMs?: number;
  retries?: number;
  /** Where delivery failures are reported (default: stderr). */
  log?: (line: string) => void;
  fetchImpl?: typeof fetch;
}

const NOOP: Alerter = { send: () => undefined, flush: async () => undefined };
const SECRET = /0x[0-9a-fA-F]{64}/g;

/** The alerter the environment asks for: HL_ALERT_WEBHOOK (unset: alerts off), HL_ALERT_EVENTS. */
export function alerterFromEnv(
  source: string,
  env: Record<string, string | undefined> = process.env,
  log?: (line: string) => void,
): Alerter {
  const url = env.HL_ALERT_WEBHOOK?.trim();
  if (!url) return NOOP;
  return createAlerter({
    url,
    source,
    events: parseAlertEvents(env.HL_ALERT_EVENTS),
    ...(log ? { log } : {}),
  });
}

/** HL_ALERT_EVENTS: a comma list of event names, or "all"; empty or unset: the defaults. */
export function parseAlertEvents(raw: string | undefined): AlertEvent[] {
  const text = raw?.trim();
  if (!text) return [...DEFAULT_ALERT_EVENTS];
  if (text === "all") return [...ALERT_EVENTS];
  const names = text
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !(ALERT_EVENTS as readonly string[]).includes(n));
  if (unknown.length > 0)
    throw new UserError(
      `HL_ALERT_EVENTS: unknown event ${unknown.join(", ")} (events: ${ALERT_EVENTS.join(", ")}, or all)`,
    );
  return names as AlertEvent[];
}

export function createAlerter(o: AlerterOptions): Alerter {
  const inFlight = new Set<Promise<void>>();
  const log = o.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const doFetch = o.fetchImpl ?? fetch;
  const timeoutMs = o.timeoutMs ?? 5000;
  const retries = o.retries ?? 2;
  let failuresReported = 0;

  async function deliver(body: string): Promise<void> {
    let lastError = "";
    for (let attempt = 0; attempt <= retries; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, 500 * 2 ** (attempt - 1)));
      try {
        const res = await doFetch(o.url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body,
          signal: AbortSignal.timeout(timeoutMs),
        });
        await res.body?.cancel();
        if (res.ok) return;
        lastError = `HTTP ${res.status}`;
        if (res.status < 500 && res.status !== 429) break; // the webhook refuses this body: retrying won't help
      } catch (err) {
        lastError = err instanceof Error ? err.message : String(err);
      }
    }
    // The URL itself may hold a token (Slack, Discord): it is never printed.
    if (failuresReported++ < 5) log(`alert not delivered to the webhook: ${lastError}`);
  }

  return {
    send(event, text, fields = {}) {
      if (!o.events.includes(event)) return;
      const line = `[${o.source}] ${text}`.replace(SECRET, "0x<redacted>");
      const body = JSON.stringify({
        text: line,
        content: line,
        event,
        source: o.source,
        time: new Date().toISOString(),
        ...fields,
      });
      const p = deliver(body).finally(() => inFlight.delete(p));
      inFlight.add(p);
    },
    async flush(waitMs = 8000) {
      if (inFlight.size === 0) return;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.all([...inFlight]),
        new Promise<void>((r) => {
          timer = setTimeout(r, waitMs);
        }),
      ]);
      clearTimeout(timer);
    },
  };
}

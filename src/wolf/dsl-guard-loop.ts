import type { StandaloneGuard } from "./dsl-runner.ts";
import type { WolfPort } from "./port.ts";

/**
 * The loop of `hl dsl start`: every streamed mid of the coin, plus a poll each tick, goes to the guard
 * until it has closed the position, the signal aborts or `maxTicks` polls ran. No path of it throws:
 * polls never wait for the stream's subscription, a failed subscription leaves the polls, and a failed
 * poll waits (1 s doubling to 30 s) and tries again.
 */
interface GuardLoopOptions {
  guard: StandaloneGuard;
  port: WolfPort;
  coin: string;
  tickMs: number;
  /** 0 = until closed or aborted */
  maxTicks: number;
  signal: AbortSignal;
  log: (line: string) => void;
  /** Operator alert: once when price polls start failing (the guard is blind), once when they recover. */
  alert?: (text: string) => void;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

const BACKOFF_MAX_MS = 30_000;

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

export async function runGuardLoop(o: GuardLoopOptions): Promise<void> {
  const sleep = o.sleep ?? abortableSleep;
  // Polling starts at once; the stream joins when (and if) its subscription is acknowledged.
  const subscribed = o.port
    .subscribeMids((mids) => {
      const px = mids[o.coin];
      // onPrice never rejects; the catch is the loop's own guarantee.
      if (px !== undefined) o.guard.onPrice(Number(px)).catch(() => undefined);
    })
    .catch((err: unknown) => {
      o.log(`price stream unavailable (${err instanceof Error ? err.message : String(err)}); polling only`);
      return undefined;
    });
  let backoffMs = 0;
  try {
    for (let n = 0; !o.guard.done && !o.signal.aborted && (o.maxTicks === 0 || n < o.maxTicks); n++) {
      try {
        const px = (await o.port.mids())[o.coin];
        const r = px === undefined ? undefined : await o.guard.onPrice(Number(px));
        if (r) o.log(`${px}  ${r.action}  floor=${r.effective_floor.toFixed(4)}  ${r.reason}`);
        if (backoffMs > 0) {
          o.log(`price polls of ${o.coin} work again`);
          o.alert?.(`hl dsl start: price polls of ${o.coin} work again`);
        }
        backoffMs = 0;
      } catch (err) {
        const first = backoffMs === 0;
        backoffMs = Math.min(BACKOFF_MAX_MS, first ? 1_000 : backoffMs * 2);
        const line = `${o.coin} price poll failed (${err instanceof Error ? err.message : String(err)}); next try in ${backoffMs / 1000} s`;
        o.log(line);
        if (first) o.alert?.(`hl dsl start: ${line}`);
      }
      if (o.guard.done) break;
      await sleep(Math.max(o.tickMs, backoffMs), o.signal);
    }
  } finally {
    const unsubscribe = await subscribed;
    await unsubscribe?.().catch(() => undefined);
  }
}

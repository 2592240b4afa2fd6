import type { Alerter } from "../alerts/webhook.ts";
import { readsStoppedBy } from "../exchange/stoppable-reads.ts";
import type { WolfConfig } from "./config.ts";
import type { WolfPort } from "./port.ts";
import type { PriceFeedOptions } from "./price-feed.ts";
import { WolfRunner } from "./runner.ts";

/**
 * Guard only: protect WOLF's open slots with no entries at all. It runs the same protective code as
 * the full trader (src/wolf/protector.ts: every exit rule on every streamed price, closes retried on
 * each price with a short back-off until confirmed, the daily loss limit) and keeps the exchange
 * backstops right (src/wolf/slot-backstops.ts: one stop per open slot, reconciled by cloid), but
 * never scans, never ticks, never enters. For:
 *
 * - protect-only mode, when a supervisor gives up on the full trader: `GuardOnly.start({port,
 *   dataDir, config, alerter})` with the defaults (takes the data dir's run lock, writes state.json);
 * - a guard beside a paused (SIGSTOPped) trader, which still holds the lock and owns state.json:
 *   `{lock: false, readOnlyState: true}`; closes still go out and trades.jsonl records them, and the
 *   trader, once resumed, books them from the fills at its next reconciliation.
 *
 * `stop()` ends it (open positions stay open, their backstops resting). `runner.state` shows the slots
 * (with `backstop` per slot) for /health.
 */
interface GuardOnlyOptions {
  port: WolfPort;
  dataDir: string;
  config: WolfConfig;
  preset?: string;
  log?: (line: string) => void;
  alerter?: Alerter;
  /** Prices are also polled this often, stream or not (default 2000 ms). */
  pollMs?: number;
  /** Slots and backstops are reconciled with the exchange this often (default 60 000 ms). */
  reconcileMs?: number;
  feed?: Pick<PriceFeedOptions, "pollMs" | "silenceMs" | "retryMinMs" | "retryMaxMs">;
  lock?: boolean;
  readOnlyState?: boolean;
}

export class GuardOnly {
  private readonly abort = new AbortController();
  private loop: Promise<void> = Promise.resolve();

  private constructor(
    readonly runner: WolfRunner,
    private readonly o: GuardOnlyOptions,
  ) {}

  /** Load the slots, reconcile them and their backstops with the exchange, and guard from then on. */
  static async start(o: GuardOnlyOptions): Promise<GuardOnly> {
    const runner = await WolfRunner.open({
      port: o.port,
      dataDir: o.dataDir,
      preset: o.preset ?? "default",
      config: o.config,
      ...(o.log ? { log: o.log } : {}),
      ...(o.alerter ? { alerter: o.alerter } : {}),
      ...(o.feed ? { feed: o.feed } : {}),
      ...(o.lock !== undefined ? { lock: o.lock } : {}),
      ...(o.readOnlyState !== undefined ? { readOnlyState: o.readOnlyState } : {}),
    });
    const g = new GuardOnly(runner, o);
    g.loop = g.run();
    return g;
  }

  /**
   * Poll prices (the stream also feeds the protector) and reconcile now and then, until stopped. The
   * loop's reads are given up at the stop (a read waiting for request weight would hold SIGTERM up
   * until the minute frees); a close the prices start is outside that scope and is seen through.
   */
  private async run(): Promise<void> {
    const signal = this.abort.signal;
    const pollMs = this.o.pollMs ?? 2_000;
    const reconcileMs = this.o.reconcileMs ?? 60_000;
    const log = this.o.log ?? (() => undefined);
    let lastReconcile = Date.now();
    while (!signal.aborted) {
      try {
        const mids = await readsStoppedBy(signal, () => this.o.port.mids());
        this.runner.onMids(mids);
      } catch (err) {
        if (signal.aborted) break;
        log(`guard only: prices unavailable (${(err as Error).message}); the exchange stops stay resting`);
      }
      if (Date.now() - lastReconcile >= reconcileMs) {
        lastReconcile = Date.now();
        await readsStoppedBy(signal, async () => {
          await this.runner.reconcile().catch((err: unknown) => log(`guard only: ${(err as Error).message}`));
          if (!signal.aborted) await this.runner.backstops?.reconcile();
        });
      }
      await sleep(pollMs, signal);
    }
  }

  /** Slots still open (active or closing). */
  openSlots(): number {
    return this.runner.state.slots.filter((s) => s.status === "active" || s.status === "closing").length;
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await this.loop;
    await this.runner.close();
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(t);
      resolve();
    };
    const t = setTimeout(() => {
      signal.removeEventListener("abort", done);
      resolve();
    }, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

import type { Alerter } from "../../alerts/webhook.ts";
import { dec } from "../../core/decimal.ts";
import { wolfConfigSchema } from "../../wolf/config.ts";
import { SlotGuards } from "../../wolf/guards.ts";
import type { WolfPort } from "../../wolf/port.ts";
import { PriceFeed } from "../../wolf/price-feed.ts";
import { Protector } from "../../wolf/protector.ts";
import { dslDir, loadWolfState, type Slot, saveWolfState, type WolfState } from "../../wolf/state.ts";

/** A running guard-only loop: exit rules on the open slots, never an entry. */
export interface GuardOnlyLoop {
  /** Coins of the slots still open. */
  guardedCoins(): string[];
  stop(): Promise<void>;
}

export interface GuardOnlyOptions {
  dataDir: string;
  port: WolfPort;
  log: (line: string) => void;
  alerter?: Alerter;
  /** How often a close that did not fill is sent again (default 1 s). */
  retryMs?: number;
  /** How often the exchange's positions are compared with the slots (default 5 s). */
  reconcileMs?: number;
  /** Price-feed timings (tests shorten them). */
  feed?: { pollMs?: number; silenceMs?: number };
}

const isOpen = (s: Slot) => s.status === "active" || s.status === "closing";

/**
 * Guards WOLF's open slots with no entries: the DSL, hard stop, time exits and daily loss limit on
 * every streamed (or polled) price, a close that did not fill sent again every `retryMs`, and a slot
 * whose position left the exchange (its backstop fired, a liquidation, a close by hand) booked from
 * the fills. It reads the slots from state.json and writes them back, so the dashboard shows what it did.
 */
export async function startGuardOnly(o: GuardOnlyOptions): Promise<GuardOnlyLoop> {
  const loaded = loadWolfState(o.dataDir);
  if (loaded.kind !== "ok") {
    o.log("guard-only: no WOLF state, nothing to guard");
    return { guardedCoins: () => [], stop: async () => undefined };
  }
  const state: WolfState = loaded.state;
  const config = wolfConfigSchema.parse(state.config);
  const guards = new SlotGuards(dslDir(o.dataDir), config, o.log);
  const now = o.port.now();
  for (const s of state.slots) if (isOpen(s)) guards.restore(s, now);
  const book = {
    state,
    save() {
      state.updated_ms = o.port.now();
      saveWolfState(o.dataDir, state);
    },
  };
  const protector = new Protector({
    port: o.port,
    dataDir: o.dataDir,
    config,
    guards,
    book,
    log: o.log,
    ...(o.alerter ? { alerter: o.alerter } : {}),
  });
  const feed = new PriceFeed({
    port: o.port,
    onMids: (mids) => protector.onMids(mids),
    guardedCoins: () => protector.guardedCoins(),
    onStatus: (status, _reason, silentCoins) => {
      state.price_stream = status;
      (state as WolfState & { price_stream_coins?: string[] }).price_stream_coins = [...silentCoins];
      book.save();
    },
    log: o.log,
    ...(o.alerter ? { alerter: o.alerter } : {}),
    ...o.feed,
  });

  // A slot left "closing" (a close that did not fill, here or before the trader stopped) is sent again.
  const retry = setInterval(() => {
    for (const s of state.slots)
      if (s.status === "closing" && !protector.closing(s.slot_id))
        void protector.exit(s.slot_id, s.exit?.reason ?? "protect_only");
  }, o.retryMs ?? 1_000);
  let reconciling = false;
  const reconcile = setInterval(async () => {
    if (reconciling) return;
    reconciling = true;
    try {
      const held = new Set((await o.port.positions()).filter((p) => !dec(p.szi).isZero()).map((p) => p.coin));
      for (const s of state.slots)
        if (isOpen(s) && !held.has(s.coin))
          await protector.settleGone(s.slot_id, "position gone on the exchange");
    } catch (e) {
      o.log(`guard-only: positions unavailable (${(e as Error).message})`);
    } finally {
      reconciling = false;
    }
  }, o.reconcileMs ?? 5_000);
  await feed.start();
  // Written once at start: a reader sees the guard job took the slots over.
  book.save();
  o.log(`guard-only: guarding ${protector.guardedCoins().join(", ") || "no open slot"} (no entries)`);
  return {
    guardedCoins: () => protector.guardedCoins(),
    async stop() {
      clearInterval(retry);
      clearInterval(reconcile);
      await feed.stop();
      await protector.settled();
      book.save();
    },
  };
}

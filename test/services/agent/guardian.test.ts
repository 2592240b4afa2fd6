import { expect, it } from "vitest";
import type { Alerter } from "../../../src/alerts/webhook.ts";
import { Guardian, type GuardJob, type GuardReason } from "../../../src/services/agent/guardian.ts";

const silent: Alerter = { send: () => undefined, flush: async () => undefined } as unknown as Alerter;

function guardian(events: string[]) {
  const start = (reason: GuardReason): GuardJob => {
    let running = true;
    events.push(`start ${reason}`);
    return {
      pid: null,
      get running() {
        return running;
      },
      async stop() {
        events.push(`stop ${reason}`);
        running = false;
      },
    };
  };
  return new Guardian({ startGuard: start, alerter: silent, longPauseMs: 60_000, log: () => undefined });
}

it("tells the guard job whether it runs beside a paused trader, and swaps it when that changes", async () => {
  const events: string[] = [];
  const g = guardian(events);
  g.paused();
  expect(events).toEqual(["start paused"]);
  // the paused trader was killed and given up on: the read-only guard gives way to one that owns the state
  g.protectOnly("gave up");
  await new Promise((r) => setImmediate(r));
  expect(events).toEqual(["start paused", "stop paused", "start protect_only"]);
  expect(g.active).toBe(true);
  await g.release();
  expect(events.at(-1)).toBe("stop protect_only");
});

it("a crash back-off then protect-only keeps the one job that owns the state", async () => {
  const events: string[] = [];
  const g = guardian(events);
  g.restarting();
  g.protectOnly("gave up");
  expect(events).toEqual(["start restarting"]);
  expect(g.active).toBe(true);
  await g.release();
  expect(events).toEqual(["start restarting", "stop restarting"]);
});

import { describe, expect, it } from "vitest";
import { dashboardReason, problems, stopCause, verdict } from "../../scripts/showcase/checks.ts";
import type { DashboardView, Sample } from "../../scripts/showcase/sample.ts";

/** The showcase's checks catch a stop the page does not explain, and only that. */
const page = (d: Partial<DashboardView> = {}): DashboardView => ({
  state: "running",
  entriesStopped: null,
  warnings: [],
  tick: "3",
  dailyPnl: "+0.00",
  totalPnl: "+0.00",
  accountPnl: "+0.00",
  slotsUsed: "1/3 used",
  activeRows: [],
  ...d,
});
const sample = (s: Partial<Sample> = {}): Sample => ({
  at_ms: 0,
  minute: 1,
  up_running: true,
  starting: false,
  health: {
    supervisor: "running",
    alive: true,
    paused: false,
    halt_reason: null,
    restart_in_s: null,
    price_stream: "ok",
    unprotected: [],
  },
  status: { status: "running", tick_count: 3, entries_stopped: null },
  account_pnl: 0,
  dashboard: page(),
  alerts: [],
  ...s,
});
const stoppedEntries = {
  status: "running",
  entries_stopped: { reason: "daily_loss_limit", detail: "x", until: null },
};

describe("showcase checks", () => {
  it("a trading agent passes", () => {
    expect(stopCause(sample())).toBeNull();
    expect(problems(sample(), { browser: true })).toEqual([]);
    expect(verdict([sample()], 30, { browser: true }).text).toBe(
      "after 30 minutes WOLF is still trading (0 trades; 0 of ? slots open at the end)",
    );
  });

  it("entries stopped with no banner on the page is a problem; with one, a stated stop", () => {
    const silent = sample({ status: stoppedEntries });
    expect(problems(silent, { browser: true })).toEqual([
      "entries stopped: daily_loss_limit, but the dashboard states no reason",
    ]);
    expect(verdict([silent], 30, { browser: true }).kind).toBe("fail");
    const said = sample({
      status: stoppedEntries,
      dashboard: page({ entriesStopped: "Entries stopped (…)" }),
    });
    expect(problems(said, { browser: true })).toEqual([]);
    expect(verdict([said], 30, { browser: true })).toMatchObject({ kind: "stopped_with_reason" });
    expect(dashboardReason(said)).toBe("Entries stopped (…)");
  });

  it("a crashed job with a silent page, and a page whose pill says running while the job is not", () => {
    const health = { ...sample().health!, supervisor: "backoff", alive: false };
    expect(problems(sample({ health, dashboard: page({ state: "stopped" }) }), { browser: true })).toEqual([
      "supervisor backoff, but the dashboard states no reason",
    ]);
    expect(problems(sample({ dashboard: page({ state: "stopped" }) }), { browser: true })).toEqual([
      'the trader runs but the dashboard\'s state reads "stopped"',
    ]);
  });

  it("starting up is not a stop", () => {
    const s = sample({ starting: true, health: null, status: null, dashboard: null });
    expect(stopCause(s)).toBe("starting");
    expect(problems(s, { browser: true })).toEqual([]);
  });
});

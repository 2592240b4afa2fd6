import { describe, expect, it } from "vitest";
import { type StopFacts, stopNotice } from "../../../src/services/agent/stop-notice.ts";

/** The sentence the dashboard shows whenever the trading job is not trading, for every supervisor state. */
const facts = (f: Partial<StopFacts>): StopFacts => ({
  supervisor: "running",
  paused: false,
  pausedForS: null,
  guardianActive: false,
  haltReason: null,
  restartInS: null,
  lastCrash: null,
  ...f,
});

describe("stop notice", () => {
  it("says nothing while the job trades (and in MCP mode, where there is none)", () => {
    expect(stopNotice(facts({}))).toBeNull();
    expect(stopNotice(facts({ supervisor: "none" }))).toBeNull();
  });

  it("a crash being backed off: what crashed, how often, when it restarts, who holds the positions", () => {
    expect(
      stopNotice(
        facts({
          supervisor: "backoff",
          restartInS: 3.4,
          lastCrash: { reason: "exit 3", crashes: 2 },
          guardianActive: true,
        }),
      ),
    ).toBe(
      "The trading job crashed (exit 3; crash 2 in a row): restart in 4 s; the guard-only job holds the positions meanwhile.",
    );
    expect(
      stopNotice(
        facts({ supervisor: "backoff", restartInS: 0, lastCrash: { reason: "SIGKILL", crashes: 1 } }),
      ),
    ).toBe(
      "The trading job crashed (SIGKILL; crash 1 in a row): restarting now; open positions rest on their exchange stops meanwhile.",
    );
  });

  it("given up on, with and without the guard-only job", () => {
    const lastCrash = { reason: "exit 1", crashes: 11 };
    expect(stopNotice(facts({ supervisor: "protect_only", guardianActive: true, lastCrash }))).toBe(
      "The trading job kept crashing (last: exit 1; 11 crashes in a row) and was given up on: protect-only mode (no entries; every exit rule still applied).",
    );
    expect(stopNotice(facts({ supervisor: "gave_up", lastCrash }))).toBe(
      "The trading job kept crashing (last: exit 1; 11 crashes in a row) and was given up on: nothing is trading; open positions rest on their exchange stops.",
    );
  });

  it("halted, finished, paused, starting, shutting down", () => {
    expect(stopNotice(facts({ supervisor: "halted", haltReason: "hard drawdown 12.50" }))).toBe(
      "Stopped on a risk hard stop (hard drawdown 12.50); not restarted.",
    );
    expect(stopNotice(facts({ supervisor: "exited" }))).toBe(
      "The trading job finished on its own (exit 0) and is not restarted.",
    );
    expect(
      stopNotice(facts({ supervisor: "paused", paused: true, pausedForS: 75, guardianActive: true })),
    ).toBe("Paused for 1m 15s: no entries; positions guarded by the guard-only job.");
    expect(stopNotice(facts({ supervisor: "paused", paused: true }))).toBe(
      "Paused: no entries; positions rely on their exchange stops.",
    );
    expect(stopNotice(facts({ supervisor: "starting" }))).toBe("The trading job is starting.");
    expect(stopNotice(facts({ supervisor: "stopped" }))).toBe(
      "The trading job was stopped: the agent service is shutting down.",
    );
  });
});

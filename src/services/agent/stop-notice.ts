/**
 * The one sentence the dashboard shows whenever the trading job is not trading, for every state of its
 * supervisor: a user must never see "stopped" without the reason. Pure: built from /health's facts.
 */

export interface StopFacts {
  /** The supervisor's state as /health reports it ("protect_only" once given up with the guard job). */
  supervisor: string;
  paused: boolean;
  pausedForS: number | null;
  guardianActive: boolean;
  haltReason: string | null;
  restartInS: number | null;
  lastCrash: { reason: string; crashes: number } | null;
}

const held = (guardianActive: boolean) =>
  guardianActive ? "the guard-only job holds the positions" : "open positions rest on their exchange stops";

const crashText = (c: StopFacts["lastCrash"]) =>
  c ? `last: ${c.reason}; ${c.crashes} crashes in a row` : "";

export function stopNotice(f: StopFacts): string | null {
  if (f.paused) {
    const m = f.pausedForS ? ` for ${Math.floor(f.pausedForS / 60)}m ${f.pausedForS % 60}s` : "";
    const who = f.guardianActive
      ? "positions guarded by the guard-only job"
      : "positions rely on their exchange stops";
    return `Paused${m}: no entries; ${who}.`;
  }
  switch (f.supervisor) {
    case "backoff": {
      const c = f.lastCrash;
      const what = c ? ` (${c.reason}; crash ${c.crashes} in a row)` : "";
      const when = f.restartInS ? `restart in ${Math.ceil(f.restartInS)} s` : "restarting now";
      return `The trading job crashed${what}: ${when}; ${held(f.guardianActive)} meanwhile.`;
    }
    case "protect_only":
      return `The trading job kept crashing (${crashText(f.lastCrash)}) and was given up on: protect-only mode (no entries; every exit rule still applied).`;
    case "gave_up":
      return `The trading job kept crashing (${crashText(f.lastCrash)}) and was given up on: nothing is trading; open positions rest on their exchange stops.`;
    case "halted":
      return `Stopped on a risk hard stop (${f.haltReason ?? "reason not recorded"}); not restarted.`;
    case "exited":
      return "The trading job finished on its own (exit 0) and is not restarted.";
    case "starting":
      return "The trading job is starting.";
    case "stopped":
      return "The trading job was stopped: the agent service is shutting down.";
    default:
      return null;
  }
}

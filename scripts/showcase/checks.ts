import type { Sample } from "./sample.ts";

/**
 * The showcase's checks, pure over samples: whether WOLF is trading, and if not, whether the dashboard
 * says why. Used by scripts/showcase-run.ts and by its bounded version in the test suite.
 */

/** Why WOLF is not entering or not trading at this sample, from the service's JSON; null while it trades. */
export function stopCause(s: Sample): string | null {
  if (s.starting) return "starting";
  if (!s.up_running) return "hl up is not running";
  if (!s.health) return "the agent service does not answer";
  if (s.health.paused) return "paused";
  const sup = s.health.supervisor;
  if (sup !== "running") return `supervisor ${sup}${s.health.halt_reason ? ` (${s.health.halt_reason})` : ""}`;
  if (!s.status || s.status.status !== "running") return "the trader is not running";
  const e = s.status.entries_stopped;
  if (e) return `entries stopped: ${e.reason}`;
  return null;
}

/** What the dashboard page states about a stop (banner and warnings), or null when it states nothing. */
export function dashboardReason(s: Sample): string | null {
  const d = s.dashboard;
  if (!d) return null;
  const lines = [...(d.entriesStopped ? [d.entriesStopped] : []), ...d.warnings];
  return lines.length > 0 ? lines.join(" | ") : null;
}

/** Defects a user would meet at this sample. */
export function problems(s: Sample, opts: { browser: boolean }): string[] {
  const out: string[] = [];
  if (s.starting) return out;
  const cause = stopCause(s);
  if (opts.browser && s.up_running && s.health && !s.dashboard) out.push("the dashboard page could not be read");
  if (cause && s.up_running && s.health && opts.browser && s.dashboard && !dashboardReason(s))
    out.push(`${cause}, but the dashboard states no reason`);
  if (!cause && s.dashboard && s.dashboard.state !== "running")
    out.push(`the trader runs but the dashboard's state reads "${s.dashboard.state}"`);
  return out;
}

export type Verdict =
  | { kind: "trading"; text: string }
  | { kind: "stopped_with_reason"; text: string }
  | { kind: "fail"; text: string };

/** The run's verdict from its last sample taken while `hl up` ran, and every sample's problems. */
export function verdict(samples: Sample[], minutes: number, opts: { browser: boolean }): Verdict {
  const found = samples.flatMap((s) => problems(s, opts).map((p) => `minute ${s.minute}: ${p}`));
  const last = samples.at(-1);
  if (!last) return { kind: "fail", text: "no sample was taken" };
  if (found.length > 0) return { kind: "fail", text: found.join("; ") };
  const cause = stopCause(last);
  if (!cause) return { kind: "trading", text: `after ${minutes} minutes WOLF is still trading (${activity(samples)})` };
  const said = dashboardReason(last);
  if (said)
    return {
      kind: "stopped_with_reason",
      text: `after ${minutes} minutes WOLF has stopped (${cause}); the dashboard states: ${said}`,
    };
  return { kind: "fail", text: `after ${minutes} minutes WOLF has stopped (${cause}) with no reason on the dashboard` };
}

/** What WOLF did in the run, so "still trading" is never read as "trading often". */
export function activity(samples: Sample[]): string {
  const seen = samples.filter((s) => s.status?.status === "running");
  const last = seen.at(-1)?.status;
  if (!last) return "no status was read";
  const trades = last.total_trades ?? 0;
  let lastTradeMin: number | null = null;
  let prev = 0;
  for (const s of seen) {
    const t = s.status?.total_trades ?? 0;
    if (t > prev) lastTradeMin = s.minute;
    prev = t;
  }
  const open = last.active_slots?.length ?? 0;
  const when = lastTradeMin === null ? "" : `, the last seen by minute ${lastTradeMin}`;
  return `${trades} trade${trades === 1 ? "" : "s"}${when}; ${open} of ${last.max_slots ?? "?"} slots open at the end`;
}

/**
 * `npm start` tried as a new user would, for a given time: starts `hl up` in a fresh temp data dir (no
 * key, no network settings), looks at what a user sees once a minute (the dashboard page in chromium,
 * /health, /api/status, /api/account-pnl, alerts), stops it with Ctrl-C and writes docs/showcase.md.
 * Run: npm run showcase -- --minutes 30 [--every-s 60] [--out docs/showcase.md] [--keep-data] [--free-ports]
 * Again from a kept run: npm run showcase -- --render DATA_DIR/showcase-run.json [--out docs/showcase.md]
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { verdict } from "./showcase/checks.ts";
import { AlertInbox, choosePorts, openDashboard, startUp, stopUp } from "./showcase/launch.ts";
import { type RunFacts, renderReport } from "./showcase/report.ts";
import { getJson, type Sample, takeSample } from "./showcase/sample.ts";

const { values } = parseArgs({
  options: {
    minutes: { type: "string", default: "30" },
    "every-s": { type: "string", default: "60" },
    out: { type: "string", default: "docs/showcase.md" },
    "keep-data": { type: "boolean", default: false },
    /** Leave the default ports to someone else on this machine. */
    "free-ports": { type: "boolean", default: false },
    /** Render the report again from a run's showcase-run.json (kept with --keep-data), without a new run. */
    render: { type: "string" },
    /** The commit the run is of (default: this checkout's HEAD). */
    commit: { type: "string" },
  },
});
const minutes = Number(values.minutes);
const everyMs = Number(values["every-s"]) * 1000;
if (!(minutes > 0) || !(everyMs >= 1000)) {
  console.error("showcase: --minutes must be > 0 and --every-s ≥ 1");
  process.exit(2);
}

const commit =
  values.commit ??
  (() => {
    try {
      return execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
    } catch {
      return "unknown";
    }
  })();
if (values.render) {
  const saved = JSON.parse(readFileSync(values.render, "utf8")) as { samples: Sample[]; facts: RunFacts };
  const again = verdict(saved.samples, saved.facts.minutes, { browser: saved.facts.browser });
  writeFileSync(values.out, renderReport(saved.samples, saved.facts, again));
  console.log(`showcase: ${again.kind}: ${again.text}; report in ${values.out}`);
  process.exit(0);
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const dataDir = mkdtempSync(join(tmpdir(), "hl-showcase-"));
const { ports, defaults } = await choosePorts(values["free-ports"]);
const inbox = await AlertInbox.open();
const agentUrl = `http://127.0.0.1:${ports.agent}`;
const startedMs = Date.now();
const machineAtStart = `${cpus().length} cores, load average ${loadavg()
  .map((l) => l.toFixed(2))
  .join(" / ")} at start`;
console.log(`showcase: hl up in ${dataDir}, agent at ${agentUrl}, ${minutes} min`);
const up = startUp(dataDir, ports, { HL_ALERT_WEBHOOK: inbox.url });

let dash: Awaited<ReturnType<typeof openDashboard>> = null;
let browserTried = false;
let upSeen = false;
let upAfterMin: number | null = null;
let preset: string | null = null;
const samples: Sample[] = [];
let stopping = false;
process.once("SIGINT", () => {
  stopping = true;
});

const endMs = startedMs + minutes * 60_000;
for (let next = startedMs + everyMs; !stopping; next += everyMs) {
  const at = Math.min(next, endMs);
  while (Date.now() < at && !stopping && up.running()) {
    // Open the dashboard as soon as the agent service answers, like a user who waits for it.
    if (!browserTried && (await getJson(`${agentUrl}/health`, 2000))) {
      browserTried = true;
      dash = await openDashboard(`${agentUrl}/`).catch(() => null);
    }
    await sleep(Math.min(2000, Math.max(0, at - Date.now())));
  }
  const s = await takeSample(agentUrl, dash?.page ?? null, {
    startedMs,
    upRunning: up.running(),
    upSeen,
    alerts: inbox.take(),
  });
  if (!upSeen && !s.starting) {
    upSeen = true;
    upAfterMin = s.minute;
  }
  samples.push(s);
  const st = s.status;
  console.log(
    `min ${s.minute}: ${s.health?.supervisor ?? "-"} tick ${st?.tick_count ?? "-"} slots ${st?.active_slots?.length ?? "-"} trades ${st?.total_trades ?? "-"} daily ${st?.daily_pnl ?? "-"} stopped ${st?.entries_stopped?.reason ?? "no"}`,
  );
  if (at >= endMs || !up.running()) break;
}

interface SavedWolf {
  preset?: string;
  closed_slots?: { instrument: string; side: string; realized_pnl: string; roe_pct: number; close_reason: string }[];
}
const wolfState = await readFile(join(dataDir, "agent", "wolf", "state.json"), "utf8")
  .then((t) => JSON.parse(t) as SavedWolf)
  .catch(() => null);
preset = wolfState?.preset ?? null;
await dash?.browser.close();
const machineAtEnd = `load average ${loadavg()
  .map((l) => l.toFixed(2))
  .join(" / ")} at the end`;
const stop = await stopUp(up);
await inbox.close();
const observedMin = Math.round(((samples.at(-1)?.at_ms ?? Date.now()) - startedMs) / 6000) / 10;
const v = verdict(samples, observedMin, { browser: dash !== null });
const facts: RunFacts = {
  startedIso: new Date(startedMs).toISOString().slice(0, 16).replace("T", " ") + " UTC",
  minutes: observedMin,
  command: "node bin/hl.mjs up (npm start)",
  commit,
  defaultPorts: defaults,
  browser: dash !== null,
  machine: `${machineAtStart}, ${machineAtEnd}; the machine is shared with other work, so it is loaded`,
  upAfterMin,
  stop,
  alerts: inbox.all,
  preset,
  closed: (wolfState?.closed_slots ?? []).map((c) => ({ ...c, realized_pnl: Number(c.realized_pnl) })),
};
writeFileSync(values.out, renderReport(samples, facts, v));
console.log(`showcase: ${v.kind}: ${v.text}; report in ${values.out}`);
writeFileSync(join(dataDir, "hl-up.out"), up.output());
// Everything the report was made from, so it can be rendered again (--render) without a new run.
writeFileSync(join(dataDir, "showcase-run.json"), JSON.stringify({ samples, facts, verdict: v }));
if (!values["keep-data"]) rmSync(dataDir, { recursive: true, force: true });
else console.log(`showcase: data kept in ${dataDir}`);
process.exit(v.kind === "fail" || stop.killed || stop.code !== 0 ? 1 : 0);

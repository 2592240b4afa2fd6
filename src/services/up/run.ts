import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { type Alerter, alerterFromEnv } from "../../alerts/webhook.ts";
import { readRunHalt } from "../../engine/run-halt.ts";
import { startWeightBroker, type WeightBroker } from "../../exchange/weight-broker.ts";
import { restartPolicyFromEnv } from "../agent/restart-policy.ts";
import { runSupervised } from "../agent/spawn-supervised.ts";
import { HL_BIN, Supervisor, type SupervisorGaveUp } from "../agent/supervisor.ts";
import { anchorBtcswp, BTCSWP_BASELINE } from "./anchor.ts";
import { combineServices, combineTraders, healthUrls } from "./combine.ts";
import type { UpConfig } from "./config.ts";
import { ChildLogFile } from "./log-file.ts";
import { type ChildSpec, plan, urls } from "./plan.ts";
import { checkPorts } from "./ports.ts";
import { type Progress, readProgress } from "./progress.ts";
import { registerBeforeTrading } from "./register.ts";

interface RunningChild {
  spec: ChildSpec;
  supervisor: Supervisor;
  logPath: string;
  healthy: boolean;
}

interface UpHandle {
  children: RunningChild[];
  /** Resolves when every service answered its health check (or rejects after `readyTimeoutMs`). */
  ready: Promise<void>;
  progress(): Promise<Progress>;
  /** Stop everything: traders first (they save state), then services, the sim world last. */
  stop(): Promise<void>;
  /** SIGKILL every child's process group at once (a second Ctrl-C). */
  kill(): void;
}

interface UpOptions {
  env?: Record<string, string | undefined>;
  /** One line for the person running `hl up` (no trailing newline). */
  log: (line: string) => void;
  readyTimeoutMs?: number;
  /** Operator alerts when a child is given up on (default: from HL_ALERT_WEBHOOK). */
  alerter?: Alerter;
}

/**
 * A standalone `hl run` child (--split) that stopped itself on a risk hard stop stays stopped: its
 * state.db says so, and a restart would undo the stop.
 */
function engineFinalStop(spec: ChildSpec): (() => string | undefined) | undefined {
  if (spec.args[0] !== "run" || !spec.env.DATA_DIR) return undefined;
  const path = join(spec.env.DATA_DIR, "cli", "state.db");
  return () => readRunHalt(path);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function answers(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
    await res.body?.cancel();
    return res.ok;
  } catch {
    return false;
  }
}

/** Poll `url` until it answers 200; false after `timeoutMs`, or as soon as `gaveUp()` says so. */
async function waitHealthy(url: string, timeoutMs: number, gaveUp: () => boolean): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && !gaveUp()) {
    if (await answers(url)) return true;
    await sleep(300);
  }
  return false;
}

async function latestOracle(feedUrl: string): Promise<string | undefined> {
  try {
    const res = await fetch(`${feedUrl}/api/latest`, { signal: AbortSignal.timeout(2000) });
    if (!res.ok) return undefined;
    const body = (await res.json()) as { oracle_px?: unknown };
    return typeof body.oracle_px === "string" ? body.oracle_px : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Approve the builder fee (0.01 %) of a trading child with its own paper wallet, as a one-off
 * `hl builder approve` with the child's environment: the exchange client stays out of this long-lived
 * parent process, whose memory counts for the whole tree.
 */
async function approveHouseBuilder(spec: ChildSpec): Promise<void> {
  await runSupervised(HL_BIN, ["builder", "approve", "--network", "paper", "--yes"], {
    env: spec.env,
    timeoutMs: 60_000,
  });
}

/**
 * The weight broker every child of `hl up` reports its request weight to and asks before a scan's
 * reads (they share one IP), unless the user set each process's budget (HL_RATE_WEIGHT_PER_MIN) or
 * HL_WEIGHT_BROKER=off. Without it (a socket that cannot be made) each child keeps to its share.
 */
async function startBroker(
  cfg: UpConfig,
  env: Record<string, string | undefined>,
  log: (line: string) => void,
): Promise<WeightBroker | undefined> {
  if (env.HL_RATE_WEIGHT_PER_MIN || env.HL_WEIGHT_BROKER === "off") return undefined;
  const socketPath = join(cfg.dataDir, "weight-broker.sock");
  try {
    return await startWeightBroker({ socketPath });
  } catch (e) {
    log(
      `weight broker not started (${(e as Error).message}); each process keeps to its own share of the weight`,
    );
    return undefined;
  }
}

/**
 * `hl up`: the sim world first (every other child would otherwise start its own), then the agent
 * service, the house agents and the services, each a supervised `hl` child with its own
 * environment and its output in `<data>/logs/<name>.log`.
 */
export async function startUp(cfg: UpConfig, opts: UpOptions): Promise<UpHandle> {
  await checkPorts(cfg.ports, cfg.host);
  const logDir = join(cfg.dataDir, "logs");
  mkdirSync(logDir, { recursive: true });
  mkdirSync(join(cfg.dataDir, "agent"), { recursive: true });

  const u = urls(cfg);
  const env = opts.env ?? process.env;
  const broker = await startBroker(cfg, env, opts.log);
  // This process's own reads of the sim spend from the broker's budget, which the children's HL_API_URL names.
  const ownBudget = broker?.budget(u.sim);
  const planned = plan(cfg, env, broker ? { weightBroker: broker.socketPath } : {});
  const alerter = opts.alerter ?? alerterFromEnv("hl up", env);
  const policy = restartPolicyFromEnv({ maxRestarts: 5, healthyAfterMs: 60_000, baseBackoffMs: 2000 }, env);
  const specs = cfg.split ? planned : combineServices(combineTraders(planned));
  const children: RunningChild[] = [];
  const logFiles: ChildLogFile[] = [];
  let stopping = false;

  const spawnChild = (spec: ChildSpec): RunningChild => {
    const logPath = join(logDir, `${spec.name}.log`);
    // The child's output, both streams, as JSON lines: its events as they are, any other line wrapped.
    const logFile = new ChildLogFile(logPath, spec.name);
    logFiles.push(logFile);
    const finalStop = engineFinalStop(spec);
    const supervisor = new Supervisor({
      args: spec.args,
      env: spec.env,
      stdio: "pipe",
      output: (stream, name, pid) => logFile.follow(stream, name, pid),
      stopTimeoutMs: spec.stopTimeoutMs,
      ...policy,
      ...(finalStop ? { finalStop } : {}),
    });
    const child: RunningChild = { spec, supervisor, logPath, healthy: false };
    supervisor.on("exit", (code: number | null, signal: string | null) => {
      if (stopping) return;
      child.healthy = false;
      // A hard stop is not restarted; the "halted" line below says why.
      if (code !== 0 && finalStop?.() !== undefined) return;
      opts.log(`${spec.name} exited (${signal ?? `code ${code}`}); restarting — see ${logPath}`);
    });
    supervisor.on("halted", (reason: string) =>
      opts.log(`${spec.name} stopped on a risk hard stop (${reason}); not restarted — see ${logPath}`),
    );
    supervisor.on("gave_up", (g: SupervisorGaveUp) => {
      const line = `${spec.name} keeps crashing (${g.crashes} crashes in a row, last: ${g.reason}); gave up — see ${logPath}`;
      opts.log(line);
      alerter.send("gave_up", line);
    });
    supervisor.on("error", (err: Error) => opts.log(`${spec.name}: ${err.message}`));
    supervisor.start();
    children.push(child);
    return child;
  };

  const aborter = new AbortController();
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    aborter.abort();
    for (const round of [0, 1, 2] as const) {
      await Promise.all(children.filter((c) => c.spec.stopRound === round).map((c) => c.supervisor.stop()));
    }
    await broker?.close();
    await Promise.all(logFiles.splice(0).map((f) => f.close()));
    await alerter.flush();
  };

  const readyTimeoutMs = opts.readyTimeoutMs ?? 90_000;
  const [simSpec, ...rest] = specs;
  const sim = spawnChild(simSpec!);
  const gaveUp = (c: RunningChild) => () => stopping || c.supervisor.status === "gave_up";
  if (!(await waitHealthy(simSpec!.healthUrl!, readyTimeoutMs, gaveUp(sim)))) {
    await stop();
    throw new Error(`the sim world did not start; see ${sim.logPath}`);
  }
  sim.healthy = true;
  await anchorBtcswp(u.sim, BTCSWP_BASELINE, ownBudget).catch(() => false);

  // Trading children that route through a builder code approve it first (signed by their paper wallet).
  await Promise.all(
    rest
      .flatMap((s) => s.hosts ?? [s])
      .filter((s) => s.builder && s.walletDir)
      .map((s) =>
        approveHouseBuilder(s).catch((e: Error) =>
          opts.log(`${s.name}: builder approval failed: ${e.message}`),
        ),
      ),
  );
  // Traders start only once their wallets are on the leaderboard: a baseline taken after the first
  // fills would make the board and the dashboard disagree.
  const isTrader = (s: ChildSpec) => (s.hosts ?? [s]).some((h) => h.walletDir !== undefined);
  for (const spec of rest.filter((s) => !isTrader(s))) spawnChild(spec);
  const traders = rest.flatMap((c) =>
    (c.hosts ?? [c]).flatMap((s) =>
      s.walletDir && s.displayName
        ? [{ name: s.name, walletDir: s.walletDir, displayName: s.displayName }]
        : [],
    ),
  );
  const registered = registerBeforeTrading(u.leaderboard, traders, aborter.signal, (agent, address) =>
    opts.log(`${agent.name} (${address}) is on the leaderboard`),
  );
  await Promise.race([registered, new Promise((r) => setTimeout(r, readyTimeoutMs).unref())]);
  if (!stopping) for (const spec of rest.filter(isTrader)) spawnChild(spec);

  const ready = Promise.all(
    children.map(async (c) => {
      const urls = healthUrls(c.spec);
      if (urls.length === 0 || c.healthy) return;
      const answered = await Promise.all(urls.map((url) => waitHealthy(url, readyTimeoutMs, gaveUp(c))));
      if (answered.every(Boolean)) c.healthy = true;
      else if (!stopping) throw new Error(`${c.spec.name} did not become healthy; see ${c.logPath}`);
    }),
  ).then(() => undefined);
  ready.catch(() => undefined);

  // House agents hosted in one shared process: a risk hard stop is said once on the console.
  const hostedEngines = children.flatMap((c) =>
    (c.spec.hosts ?? []).flatMap((s) => {
      const check = engineFinalStop(s);
      return check ? [{ name: s.name, check }] : [];
    }),
  );
  const haltsTold = new Set<string>();
  const tellHalts = () => {
    for (const e of hostedEngines) {
      if (haltsTold.has(e.name)) continue;
      const reason = e.check();
      if (reason === undefined) continue;
      haltsTold.add(e.name);
      opts.log(`${e.name} stopped on a risk hard stop (${reason}); not restarted until started with --fresh`);
    }
  };

  const feedUrl = `http://${cfg.host}:${cfg.ports.feeds + 1}`;
  let lastAnchorMs = 0;
  const progress = async (): Promise<Progress> => {
    tellHalts();
    // Health of every served child, refreshed on each summary (a restarted child counts once it answers).
    await Promise.all(
      children.map(async (c) => {
        const urls = healthUrls(c.spec);
        if (urls.length > 0) c.healthy = (await Promise.all(urls.map(answers))).every(Boolean);
        else c.healthy = c.supervisor.alive;
      }),
    );
    const healthy = children.filter((c) => c.healthy).length;
    const p = await readProgress(
      { agentUrl: u.agent, leaderboardUrl: u.leaderboard, btcswpFeedUrl: feedUrl, isfrUrl: u.isfr },
      { healthy, total: children.length },
      Date.now(),
    );
    if (Date.now() - lastAnchorMs > 30_000) {
      lastAnchorMs = Date.now();
      const oracle = p.btcswp ?? (await latestOracle(feedUrl));
      if (oracle) await anchorBtcswp(u.sim, oracle, ownBudget).catch(() => false);
    }
    return p;
  };

  const kill = () => {
    for (const c of children) {
      const pid = c.supervisor.pid;
      if (pid === null) continue;
      try {
        process.kill(-pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
  };

  return { children, ready, progress, stop, kill };
}

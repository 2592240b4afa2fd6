import type { IncomingMessage } from "node:http";
import { join } from "node:path";
import { agentAlertSource } from "../../alerts/agent-label.ts";
import { type Alerter, alerterFromEnv } from "../../alerts/webhook.ts";
import { readRunHalt } from "../../engine/run-halt.ts";
import { createHttpApp, type HttpApp } from "../../http/app.ts";
import { corsHeaders } from "../../http/cors.ts";
import { HttpError } from "../../http/errors.ts";
import { JSON_TYPE, json, send, TAKEN_OVER } from "../../http/reply.ts";
import { serveWebFolder } from "../../http/static.ts";
import type { NetworkAccounts } from "../leaderboard/account-source.ts";
import { AccountPnlWatch } from "./account-pnl.ts";
import { checkControlAccess } from "./auth.ts";
import { type AgentConfig, childArgs, guardArgs, tickSeconds } from "./config.ts";
import { ExchangeClock } from "./exchange-clock.ts";
import { StatusFeed } from "./feed.ts";
import { gatewayProxy } from "./gateway-proxy.ts";
import { Guardian, type StartGuard } from "./guardian.ts";
import { PnlHistory } from "./pnl-history.ts";
import { type StatusMappers, StatusReader } from "./status-reader.ts";
import { stopNotice } from "./stop-notice.ts";
import {
  Supervisor,
  type SupervisorCrash,
  type SupervisorGaveUp,
  type SupervisorOptions,
} from "./supervisor.ts";
import { lastJsonLines } from "./trades-tail.ts";

export interface SkillInstallResult {
  installed: boolean;
  strategies?: number;
  tools?: number;
  error?: string;
}

export interface AgentDeps {
  mappers: StatusMappers;
  /** The strategy catalog, loaded on the first `/api/strategies` (the strategies weigh on a service at rest). */
  catalog: () => unknown | Promise<unknown>;
  skillInstall: () => Promise<SkillInstallResult>;
  /** Mounts the MCP server on the app when RUN_MODE=mcp. */
  mountMcp?: (app: HttpApp) => Promise<void> | void;
  supervisor?: Partial<SupervisorOptions>;
  feedIntervalMs?: number;
  /** Operator alerts about the trading job (crash, gave up); default: from HL_ALERT_WEBHOOK. */
  alerter?: Alerter;
  /** Starts the guard-only job (paused or given-up trader); default: `hl agent guard` under its own supervisor. */
  startGuard?: StartGuard;
  /** A restart back-off at least this long is covered by the guard-only job (default 5 s). */
  guardDuringBackoffMs?: number;
  /** The exchange's accounts, for the account PnL; default: a read-only client on the agent's network. */
  accounts?: () => Promise<NetworkAccounts>;
}

/** A read-only exchange client on `network` (loaded only once the agent is on a leaderboard). */
async function exchangeAccounts(network: AgentConfig["network"]): Promise<NetworkAccounts> {
  const [{ HlClient }, { hlAccounts }] = await Promise.all([
    import("../../exchange/index.ts"),
    import("../leaderboard/account-source.ts"),
  ]);
  const client = await HlClient.create({
    network,
    paperWallet: false,
    timeoutMs: 5_000,
    retry: { attempts: 1 },
    env: { ...process.env, HL_PRIVATE_KEY: undefined },
  });
  return hlAccounts(client);
}

/** The guard-only job as a supervised `hl` child (restarted if it crashes, like the trader). */
function supervisedGuard(
  args: string[],
  opts: Partial<SupervisorOptions> = {},
  alerter?: Alerter,
): StartGuard {
  return (reason) => {
    // Beside a paused trader, the trader keeps its run lock and state.json.
    const s = new Supervisor({ ...opts, args: reason === "paused" ? [...args, "--beside-paused"] : args });
    s.on("gave_up", (g: SupervisorGaveUp) =>
      alerter?.send(
        "gave_up",
        `guard-only job gave up after ${g.crashes} crashes in a row (last: ${g.reason}); open positions rest on their exchange stop orders alone`,
      ),
    );
    s.start();
    return {
      get pid() {
        return s.pid;
      },
      get running() {
        return s.alive || s.status === "backoff";
      },
      stop: () => s.stop(),
    };
  };
}

interface AgentService {
  app: HttpApp;
  port: number;
  supervisor: Supervisor | undefined;
  guardian: Guardian | undefined;
  reader: StatusReader;
  feed: StatusFeed;
  close(): Promise<void>;
}

export async function startAgentService(cfg: AgentConfig, deps: AgentDeps): Promise<AgentService> {
  const startedAt = Date.now();
  const gateway = cfg.gatewayUrl ? gatewayProxy(cfg.gatewayUrl) : undefined;
  const app = createHttpApp({
    name: "agent",
    corsOrigin: cfg.corsOrigin,
    corsPaths: (url) => url.startsWith("/api/"),
    notFound: gateway?.notFound,
  });

  const args = childArgs(cfg);
  const supervisorOptions: Partial<SupervisorOptions> = { ...cfg.restart, ...deps.supervisor };
  // A strategy engine that stopped itself on a risk hard stop stays stopped: a restart would undo it.
  const enginePath = join(cfg.dataDir, "cli", "state.db");
  const finalStop = cfg.mode === "strategy" ? () => readRunHalt(enginePath) : undefined;
  // The guard job that covered a restart back-off stops before the new child starts.
  const beforeRestart = () => guardian?.restartDue() ?? Promise.resolve();
  const supervisor = args
    ? new Supervisor({ ...supervisorOptions, ...(finalStop ? { finalStop } : {}), beforeRestart, args })
    : undefined;
  const running = cfg.mode === "strategy" ? `strategy ${cfg.strategy} ${cfg.instrument}` : cfg.mode;
  const alerter =
    deps.alerter ??
    alerterFromEnv(agentAlertSource(`agent ${running} (${cfg.network})`, cfg.dataDir, process.env));
  const guardJobArgs = guardArgs(cfg);
  const startGuard =
    deps.startGuard ?? (guardJobArgs ? supervisedGuard(guardJobArgs, supervisorOptions, alerter) : undefined);
  const guardian = startGuard
    ? new Guardian({ startGuard, alerter, longPauseMs: cfg.pauseAlertS * 1000 })
    : undefined;
  const guardDuringBackoffMs = deps.guardDuringBackoffMs ?? 5_000;
  supervisor?.on("crash", (c: SupervisorCrash) => {
    alerter.send(
      "crash",
      `trading job crashed (${c.reason}); ${
        c.restartInMs === 0 ? "restarted at once" : `restart in ${Math.round(c.restartInMs / 1000)} s`
      } (crash ${c.crashes} in a row)`,
    );
    // A crash loop's back-off grows to 30 s: the positions are not left alone that long.
    if (c.restartInMs >= guardDuringBackoffMs) guardian?.restarting();
  });
  supervisor?.on("gave_up", (g: SupervisorGaveUp) => {
    const detail = `trading job gave up after ${g.crashes} crashes in a row (last: ${g.reason})`;
    if (guardian) guardian.protectOnly(detail);
    else alerter.send("gave_up", `${detail}; nothing is trading now`);
  });
  supervisor?.on("halted", (reason: string) =>
    alerter.send("halt", `trading job stopped on a risk hard stop (${reason}); not restarted`),
  );
  /** The supervisor's state, "protect_only" once it gave up and the guard job holds the positions. */
  const supervisorState = () => {
    const st = supervisor?.status ?? "none";
    return st === "gave_up" && guardian?.reason === "protect_only" && guardian.active ? "protect_only" : st;
  };
  const isAlive = () => supervisor?.alive ?? false;
  const reader = new StatusReader(cfg.dataDir, cfg.mode, deps.mappers, isAlive);
  const feed = new StatusFeed(() => reader.status(), {
    intervalMs: deps.feedIntervalMs,
    headers: corsHeaders(cfg.corsOrigin),
  });

  // The leaderboard's PnL of this agent, read from the exchange against its registration baseline;
  // its readings also carry the exchange's clock, which stamps the chart's points (sim time on a fast sim).
  const clock = new ExchangeClock();
  const account =
    cfg.mode === "mcp"
      ? undefined
      : new AccountPnlWatch(cfg.dataDir, deps.accounts ?? (() => exchangeAccounts(cfg.network)), {
          intervalMs: deps.feedIntervalMs,
          clock,
        });
  const history = new PnlHistory(() => reader.status(), {
    intervalMs: deps.feedIntervalMs,
    now: () => clock.now(Date.now()),
  });

  const tickOf = () => {
    const s = reader.status();
    return s.status === "running" ? s.tick_count : 0;
  };
  const numberField = (name: string) => {
    const s = reader.status() as Record<string, unknown>;
    const v = s[name];
    return typeof v === "number" ? v : 0;
  };
  const gauges: [string, string, () => number][] = [
    ["agent_tick_count", "Ticks completed by the trading child", tickOf],
    ["agent_sse_clients", "Connected /api/feed clients", () => feed.clients],
    [
      "agent_child_restarts",
      "Restarts of the trading child after a crash",
      () => supervisor?.restartCount ?? 0,
    ],
    ["agent_child_alive", "1 while the trading child runs", () => (isAlive() ? 1 : 0)],
    [
      "agent_total_pnl_usd",
      "Total PnL (wolf) or realized PnL (strategy)",
      () => numberField("total_pnl") || numberField("realized_pnl"),
    ],
    [
      "agent_total_trades",
      "Trades (wolf) or fills (strategy)",
      () => numberField("total_trades") || numberField("total_fills"),
    ],
    ["agent_total_orders", "Orders placed this session (strategy mode)", () => numberField("total_orders")],
  ];
  // Read when scraped: prom-client loads with the first /metrics, not with the service.
  app.meter.whenLoaded((prom, registry) => {
    for (const [name, help, value] of gauges)
      new prom.Gauge({
        name,
        help,
        registers: [registry],
        collect() {
          this.set(value());
        },
      });
  });

  app.get("/health", () =>
    json({
      status: "ok",
      mode: cfg.mode,
      uptime_s: Math.floor((Date.now() - startedAt) / 1000),
      pid: supervisor?.pid ?? null,
      alive: isAlive(),
      paused: supervisor?.paused ?? false,
      paused_for_s: guardian?.pausedForS() ?? null,
      supervisor: supervisorState(),
      guardian: {
        active: guardian?.active ?? false,
        reason: guardian?.reason ?? null,
        pid: guardian?.pid ?? null,
      },
      restart_in_s: supervisor?.restartInS ?? null,
      halt_reason: supervisor?.halt ?? null,
      last_crash: supervisor?.lastCrash ?? null,
      stop_notice: stopNotice({
        supervisor: supervisorState(),
        paused: supervisor?.paused ?? false,
        pausedForS: guardian?.pausedForS() ?? null,
        guardianActive: guardian?.active ?? false,
        haltReason: supervisor?.halt ?? null,
        restartInS: supervisor?.restartInS ?? null,
        lastCrash: supervisor?.lastCrash ?? null,
      }),
      last_tick_age_s: reader.lastTickAgeS(),
      price_stream: reader.priceStream(),
      price_stream_degraded_coins: reader.degradedCoins(),
      unprotected: reader.unprotected(),
    }),
  );

  app.get("/api/status", () => send(reader.statusJson(), JSON_TYPE));
  // The catalog is generated from the strategy files and never changes while the process runs.
  let catalogJson: Promise<string> | undefined;
  app.get("/api/strategies", async () => {
    catalogJson ??= Promise.resolve(deps.catalog()).then((c) => JSON.stringify(c));
    return send(await catalogJson, JSON_TYPE);
  });
  app.get("/status", () => send(`${reader.text().trimEnd()}\n`, "text/plain; charset=utf-8"));
  app.get("/api/info", () =>
    json({
      mode: cfg.mode,
      network: cfg.network,
      tick_interval_s: tickSeconds(cfg),
      control_token_required: cfg.apiToken !== undefined,
      supervisor: supervisorState(),
    }),
  );
  const tradesPath = join(cfg.dataDir, cfg.mode === "strategy" ? "cli" : "wolf", "trades.jsonl");
  app.get("/api/trades", (req) => {
    const given = req.query.getAll("limit");
    // A repeated limit is as wrong as a malformed one.
    const raw = given.length === 0 ? 50 : given.length === 1 ? Number(given[0]) : Number.NaN;
    if (!Number.isInteger(raw) || raw < 1 || raw > 1000)
      throw new HttpError(400, "limit must be an integer 1-1000");
    return json({ trades: lastJsonLines(tradesPath, raw) });
  });

  // Checked before the body is read: a refused request never reaches a handler.
  const control = { token: cfg.apiToken, corsOrigin: cfg.corsOrigin };
  const guarded = { guard: (req: IncomingMessage) => checkControlAccess(req, control) };
  app.post("/api/skill/install", async () => json(await deps.skillInstall()), guarded);
  app.post(
    "/api/pause",
    () => {
      if (!supervisor?.pause()) return json({ error: "No running agent to pause" }, 409);
      // The pause stops the trader, not the protection: the guard job holds its positions meanwhile.
      guardian?.paused();
      return json({ status: "paused" });
    },
    guarded,
  );
  app.post(
    "/api/resume",
    async () => {
      if (!supervisor?.paused) return json({ error: "No paused agent to resume" }, 409);
      // One owner of the slots at a time: the guard job is stopped (and waited for) before SIGCONT.
      await guardian?.resuming();
      return supervisor.resume()
        ? json({ status: "resumed" })
        : json({ error: "No paused agent to resume" }, 409);
    },
    guarded,
  );

  // The dashboard chart's past (an addition beside the contract's routes).
  app.get("/api/pnl-history", (req) => {
    const raw = req.query.get("since_ms");
    const since = raw === null ? Number.NEGATIVE_INFINITY : Number(raw);
    if (raw !== null && (raw.trim() === "" || !Number.isFinite(since)))
      throw new HttpError(400, "since_ms must be a number (ms)");
    return json({ points: history.since(since) });
  });
  // The account PnL the leaderboard ranks (null until the agent is registered and its account read).
  app.get("/api/account-pnl", () => json(account?.latest() ?? { account_pnl: null }));

  app.get("/api/feed", (req) => {
    feed.attach(req.res);
    return TAKEN_OVER;
  });

  if (cfg.mode === "mcp" && deps.mountMcp) await deps.mountMcp(app);
  const dashboardPrefix = gateway ? "/dashboard/" : "/";
  // Always served (an empty list without HL_LINKS), so the page's script tag never 404s.
  const linksScript = `window.HL_LINKS = ${JSON.stringify(cfg.links).replace(/</g, "\\u003c")};\n`;
  app.get(`${dashboardPrefix}assets/links.js`, () =>
    send(linksScript, "text/javascript; charset=utf-8", { "cache-control": "no-cache" }),
  );
  if (gateway) {
    serveWebFolder(app, "/dashboard/", "agent");
    gateway.attachUpgrades(app.server);
  } else {
    serveWebFolder(app, "/", "agent");
  }

  const port = await app.listen(cfg.port, cfg.host);
  supervisor?.start();

  return {
    app,
    port,
    supervisor,
    guardian,
    reader,
    feed,
    async close() {
      feed.close();
      await guardian?.release();
      history.close();
      await account?.close();
      await supervisor?.stop();
      reader.close();
      await app.close();
      await alerter.flush();
    },
  };
}

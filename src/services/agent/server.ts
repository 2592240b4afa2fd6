import type { IncomingMessage } from "node:http";
import { join } from "node:path";
import { type Alerter, alerterFromEnv } from "../../alerts/webhook.ts";
import { createHttpApp, type HttpApp } from "../../http/app.ts";
import { corsHeaders } from "../../http/cors.ts";
import { HttpError } from "../../http/errors.ts";
import { JSON_TYPE, json, send, TAKEN_OVER } from "../../http/reply.ts";
import { serveWebFolder } from "../../http/static.ts";
import { checkControlAccess } from "./auth.ts";
import { type AgentConfig, childArgs, tickSeconds } from "./config.ts";
import { StatusFeed } from "./feed.ts";
import { gatewayProxy } from "./gateway-proxy.ts";
import { type StatusMappers, StatusReader } from "./status-reader.ts";
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
}

export interface AgentService {
  app: HttpApp;
  port: number;
  supervisor: Supervisor | undefined;
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
  const supervisor = args ? new Supervisor({ args, ...deps.supervisor }) : undefined;
  const alerter = deps.alerter ?? alerterFromEnv(`agent ${cfg.mode} (${cfg.network})`);
  supervisor?.on("crash", (c: SupervisorCrash) =>
    alerter.send(
      "crash",
      `trading job crashed (${c.reason}); ${
        c.restartInMs === 0 ? "restarted at once" : `restart in ${Math.round(c.restartInMs / 1000)} s`
      } (crash ${c.crashes} in a row)`,
    ),
  );
  supervisor?.on("gave_up", (g: SupervisorGaveUp) =>
    alerter.send(
      "gave_up",
      `trading job gave up after ${g.crashes} crashes in a row (last: ${g.reason}); nothing is trading now`,
    ),
  );
  const isAlive = () => supervisor?.alive ?? false;
  const reader = new StatusReader(cfg.dataDir, cfg.mode, deps.mappers, isAlive);
  const feed = new StatusFeed(() => reader.status(), {
    intervalMs: deps.feedIntervalMs,
    headers: corsHeaders(cfg.corsOrigin),
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
      supervisor: supervisor?.status ?? "none",
      restart_in_s: supervisor?.restartInS ?? null,
      last_tick_age_s: reader.lastTickAgeS(),
      price_stream: reader.priceStream(),
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
      supervisor: supervisor?.status ?? "none",
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
    () =>
      supervisor?.pause() ? json({ status: "paused" }) : json({ error: "No running agent to pause" }, 409),
    guarded,
  );
  app.post(
    "/api/resume",
    () =>
      supervisor?.resume() ? json({ status: "resumed" }) : json({ error: "No paused agent to resume" }, 409),
    guarded,
  );

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
    reader,
    feed,
    async close() {
      feed.close();
      await supervisor?.stop();
      reader.close();
      await app.close();
      await alerter.flush();
    },
  };
}

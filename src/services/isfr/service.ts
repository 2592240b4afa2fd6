import { Gauge } from "prom-client";
import { D, num } from "../../core/decimal.ts";
import type { SharedDb } from "../../db/shared.ts";
import type { HttpApp } from "../../http/app.ts";
import { ServiceHealth, storeProbe } from "../../http/health.ts";
import { json, redirect } from "../../http/reply.ts";
import { createService, HttpError } from "../../http/service.ts";
import { serveWebFolder } from "../../http/static.ts";
import { methodologyParams } from "./catalog.ts";
import type { IsfrConfig } from "./config.ts";
import type { FundingPort } from "./funding-source.ts";
import { IsfrIndexer, toSnapshot } from "./indexer.ts";
import { ISFR_VERSION, isRateClass, RATE_CLASSES } from "./methodology.ts";
import { isOhlcInterval, OHLC_INTERVALS, toCandles } from "./ohlc.ts";
import { ISFR_SNAPSHOT_CHANNEL, PgSnapshotStore } from "./pg-snapshot-store.ts";
import {
  bps,
  candleView,
  currentObject,
  historyPoint,
  isoWithOffset,
  optBps,
  sourceView,
} from "./present.ts";
import { type Snapshot, type SnapshotStore, SqliteSnapshotStore } from "./snapshot-store.ts";
import { electedWriter, type IsfrWriter, localWriter } from "./writer.ts";

const DAY_MS = 86_400_000;
const MAX_DAYS = 365;

export interface IsfrServiceDeps {
  funding: FundingPort;
  now?: () => number;
  fetch?: typeof fetch;
  /** Postgres shared by replicas (DATABASE_URL): snapshots are taken by the replica elected writer. */
  shared?: SharedDb;
  /** The network whose funding ISFR reads (shown on the page). */
  network?: string;
}

export interface IsfrService {
  app: HttpApp;
  /** Take one snapshot now (also what the timer does); with `shared`, only on the elected writer. */
  snapshot(): Promise<Snapshot>;
  /**
   * Start the hourly (ISFR_SNAPSHOT_INTERVAL_S) snapshots, the first one immediately; with `shared`,
   * while this replica is the writer, keeping the stored snapshots' cadence.
   */
  startSnapshots(): void;
  close(): Promise<void>;
}

function daysParam(raw: unknown, fallback: number): number {
  if (raw === undefined || raw === "") return fallback;
  const n = typeof raw === "string" && /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(n >= 1 && n <= MAX_DAYS)) throw new HttpError(400, `days must be an integer from 1 to ${MAX_DAYS}`);
  return n;
}

export function createIsfrService(
  config: IsfrConfig,
  deps: IsfrServiceDeps,
): IsfrService & {
  /** GET /health and /isfr/health: sources registered here (store, election) add to it. */
  health: ServiceHealth;
} {
  const now = deps.now ?? Date.now;
  const started = now();
  const params = methodologyParams({
    catalog: config.catalog,
    staleAfterMs: config.staleAfterMs,
    alpha: config.alpha,
    derivativeClassWeights: config.derivativeClassWeights,
  });
  const shared = deps.shared;
  const pgStore = shared ? new PgSnapshotStore(shared.pool) : undefined;
  const store: SnapshotStore = pgStore ?? new SqliteSnapshotStore(config.dbPath);
  const makeIndexer = (writeTo: SnapshotStore) =>
    new IsfrIndexer({
      store: writeTo,
      catalog: config.catalog,
      params,
      yieldsUrl: config.yieldsUrl,
      funding: deps.funding,
      sourceTimeoutMs: config.sourceTimeoutMs,
      retentionMs: (MAX_DAYS + 35) * DAY_MS,
      now,
      fetch: deps.fetch,
    });
  const { app, metrics } = createService({ name: "isfr", corsOrigin: config.corsOrigin });
  const rateGauge = new Gauge({
    name: "isfr_bps",
    help: "Latest published ISFR in basis points",
    registers: [metrics],
  });
  const confidenceGauge = new Gauge({
    name: "isfr_confidence",
    help: "Confidence of the latest ISFR",
    registers: [metrics],
  });
  const freshGauge = new Gauge({
    name: "isfr_sources_fresh",
    help: "Sources with fresh data",
    registers: [metrics],
  });

  function showGauges(snap: Snapshot): void {
    if (snap.rate !== null) {
      rateGauge.set(new D(snap.rate).times(10_000).toNumber());
      confidenceGauge.set(Number(snap.confidence));
    }
    freshGauge.set(snap.sources.filter((s) => s.status === "fresh").length);
  }

  /** Each source's last read error, as stored by whichever process wrote the last snapshot. */
  async function lastErrors(): Promise<Map<string, string | null>> {
    return new Map((await store.sourceStates()).map((s) => [s.sourceId, s.lastError]));
  }

  /** The latest snapshot if it may be published as current; otherwise why not (→ 503). */
  function current(snap: Snapshot | undefined): { snap: Snapshot } | { unavailable: string } {
    if (!snap) return { unavailable: "ISFR not published yet: first snapshot pending" };
    if (snap.rate === null)
      return { unavailable: `ISFR unavailable: ${snap.reason ?? "no fresh source data"}` };
    const ageMs = now() - snap.tMs;
    if (ageMs > config.staleAfterMs) {
      return { unavailable: `ISFR unavailable: latest snapshot is ${Math.round(ageMs / 1000)} s old` };
    }
    return { snap };
  }

  async function requireCurrent(): Promise<Snapshot> {
    const c = current(await store.latest());
    if ("unavailable" in c) throw new HttpError(503, c.unavailable);
    return c.snap;
  }

  const health = new ServiceHealth(async () => {
    const latest = await store.latest();
    const c = current(latest);
    return {
      status: "snap" in c ? "ok" : "degraded",
      network: deps.network ?? null,
      version: ISFR_VERSION,
      uptime_s: Math.floor((now() - started) / 1000),
      last_snapshot: latest ? isoWithOffset(latest.tMs) : null,
      last_snapshot_age_s: latest ? Math.floor((now() - latest.tMs) / 1000) : null,
      published: "snap" in c,
      reason: "unavailable" in c ? c.unavailable : null,
      sources_fresh: latest ? latest.sources.filter((s) => s.status === "fresh").length : 0,
      sources_total: config.catalog.length,
      snapshot_interval_s: config.snapshotIntervalMs / 1000,
    };
  });
  health.serve(app, ["/health", "/isfr/health"]);

  app.get("/isfr/v1/isfr/current", async () => json(currentObject(await requireCurrent(), config.alpha)));

  app.get("/isfr/v1/isfr/history", async (req) => {
    const days = daysParam(req.query.get("days") ?? undefined, 30);
    const points = (await store.publishedSince(now() - days * DAY_MS)).map(historyPoint);
    return json({ version: ISFR_VERSION, days, count: points.length, points });
  });

  app.get("/isfr/v1/isfr/subindex/*", async (req) => {
    const cls = req.rest;
    if (cls.includes("/")) throw new HttpError(404, `Not found: GET ${req.path}`);
    if (!isRateClass(cls)) {
      throw new HttpError(404, `Unknown class "${cls}" (expected one of ${RATE_CLASSES.join(", ")})`);
    }
    const days = daysParam(req.query.get("days") ?? undefined, 30);
    const snap = await requireCurrent();
    const value = snap.components[cls];
    const errors = await lastErrors();
    const history = (await store.publishedSince(now() - days * DAY_MS))
      .filter((s) => s.components[cls] !== null)
      .map((s) => ({
        timestamp: isoWithOffset(s.tMs),
        value_bps: bps(s.components[cls]!),
      }));
    return json({
      class: cls,
      value_bps: optBps(value),
      rate: value === null ? null : num(value, 6),
      weight_effective: num(snap.weights[cls]),
      timestamp: isoWithOffset(snap.tMs),
      version: snap.version,
      sources: snap.sources
        .filter((s) => s.class === cls)
        .map((s) => sourceView(s, errors.get(s.id) ?? null)),
      days,
      history,
    });
  });

  app.get("/isfr/v1/isfr/sources", async () => {
    const latest = await store.latest();
    const errors = await lastErrors();
    // Before the first snapshot: the configured sources, none read yet.
    const snap = latest ?? toSnapshot(params, new Map(), now());
    return json({
      timestamp: latest ? isoWithOffset(latest.tMs) : null,
      version: snap.version,
      stale_after_s: config.staleAfterMs / 1000,
      sources: snap.sources.map((s) => sourceView(s, errors.get(s.id) ?? null)),
    });
  });

  app.get("/isfr/v1/isfr/ohlc", async (req) => {
    const days = daysParam(req.query.get("days") ?? undefined, 30);
    const interval = req.query.get("interval") ?? "1D";
    if (!isOhlcInterval(interval)) {
      throw new HttpError(400, `interval must be one of ${OHLC_INTERVALS.join(", ")}`);
    }
    const points = (await store.ratesSince(now() - days * DAY_MS)).map((s) => ({
      tMs: s.tMs,
      value: new D(s.rate).times(10_000),
    }));
    const candles = toCandles(points, interval).map(candleView);
    return json({ version: ISFR_VERSION, interval, days, unit: "bps", count: candles.length, candles });
  });

  app.get("/isfr", () => redirect("/isfr/"));
  serveWebFolder(app, "/isfr/", "isfr");

  const hooks = {
    intervalMs: config.snapshotIntervalMs,
    onSnapshot: showGauges,
    onError: (err: unknown) => app.log.error({ err }, "ISFR snapshot failed"),
  };
  const writer: IsfrWriter =
    shared && pgStore
      ? electedWriter(shared, pgStore, makeIndexer, now, { ...hooks, log: (line) => app.log.info(line) })
      : localWriter(makeIndexer(store), hooks);

  if (writer.health) health.register(writer.health);
  if (shared) health.register(storeProbe(() => shared.pool.query("select 1")));

  // Replicas that do not write still show the latest snapshot in their metrics.
  let unsubscribe: Promise<() => void> | undefined;
  if (shared) {
    unsubscribe = shared.listener.subscribe(ISFR_SNAPSHOT_CHANNEL, () => {
      store.latest().then((snap) => snap && showGauges(snap), hooks.onError);
    });
  }

  return {
    app,
    health,
    snapshot: () => writer.snapshot(),
    startSnapshots: () => writer.startSchedule(),
    async close() {
      (await unsubscribe)?.();
      await app.close();
      await writer.close();
      await store.close();
    },
  };
}

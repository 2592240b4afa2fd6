import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { listen } from "../../../src/http/service.ts";
import { type IsfrConfig, isfrConfig } from "../../../src/services/isfr/config.ts";
import type { FundingPort } from "../../../src/services/isfr/funding-source.ts";
import {
  createIsfrService,
  type IsfrService,
  type IsfrServiceDeps,
} from "../../../src/services/isfr/service.ts";
import { usePostgres } from "../../support/postgres.ts";
import { HEALTHY_POOLS, json, pool, startYieldsFixture, type YieldsFixture } from "./fixtures.ts";
import { startIsfrReplicas } from "./replicas.ts";

const HOUR = 3_600_000;
const T0 = Date.parse("2026-03-02T10:00:00Z");

interface Harness {
  svc: IsfrService;
  base: string;
  clock: { t: number };
  funding: { rates: Map<string, string> | "hang" | "fail" };
}

let dir: string;
let yields: YieldsFixture;
let harness: Harness | undefined;

async function start(env: Record<string, string> = {}): Promise<Harness> {
  const clock = { t: T0 };
  const funding: Harness["funding"] = {
    rates: new Map([
      ["BTC", "0.0000125"],
      ["ETH", "0.00001"],
    ]),
  };
  const port: FundingPort = {
    hourlyFunding: () => {
      const r = funding.rates;
      if (r === "hang") return new Promise(() => undefined);
      if (r === "fail") return Promise.reject(new Error("exchange down"));
      return Promise.resolve(r);
    },
  };
  const config = isfrConfig({
    DATA_DIR: dir,
    YIELDS_API_URL: yields.url,
    ISFR_SOURCE_TIMEOUT_S: "0.3",
    ...env,
  });
  const { svc, base } = await launch(config, { funding: port, now: () => clock.t });
  harness = { svc, base, clock, funding };
  return harness;
}

type Launch = (config: IsfrConfig, deps: IsfrServiceDeps) => Promise<{ svc: IsfrService; base: string }>;
const postgres = usePostgres();

/** The same acceptance tests, against one process on SQLite and against two replicas on Postgres. */
const deployments: [string, Launch][] = [
  [
    "one process on SQLite",
    async (config, deps) => {
      const svc = createIsfrService(config, deps);
      return { svc, base: `http://127.0.0.1:${await listen(svc.app, 0)}` };
    },
  ],
  [
    "two replicas on Postgres behind a round-robin balancer",
    async (config, deps) => startIsfrReplicas(await postgres.current.freshDatabase(), config, deps),
  ],
];
let launch: Launch = deployments[0]![1];

async function get(
  h: Harness,
  path: string,
): Promise<{ status: number; body: Record<string, unknown> & { [k: string]: unknown } }> {
  const res = await fetch(h.base + path);
  expect(res.headers.get("content-type")).toMatch(/json/);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "isfr-"));
  yields = await startYieldsFixture();
});

afterEach(async () => {
  await harness?.svc.close();
  harness = undefined;
  await yields.close();
  rmSync(dir, { recursive: true, force: true });
});

describe.each(deployments)("%s", (_name, deployment) => {
  beforeAll(() => {
    launch = deployment;
  });

  describe("ISFR service", () => {
    it("publishes the current object from the yields API and exchange funding", async () => {
      const h = await start();
      await h.svc.snapshot();
      const { status, body } = await get(h, "/isfr/v1/isfr/current");
      expect(status).toBe(200);
      // lending 0.6·4 % + 0.4·4.5 % = 420 bps; funding (BTC 1095, ETH 876) → 985.5; structured 1000; staking 300.
      // R_deriv = 0.4·1000 + 0.4·985.5 + 0.2·300 = 854.2; ISFR = 420 + 0.25·434.2 = 528.55 bps.
      expect(body).toMatchObject({
        isfr_bps: 528.55,
        rate: 0.052855,
        rate_formatted: "5.29%",
        components: { lending: 420, structured: 1000, funding: 985.5, staking: 300 },
        class_weights_effective: { lending: 0.75, structured: 0.1, funding: 0.1, staking: 0.05 },
        timestamp: "2026-03-02T10:00:00.000+00:00",
        version: "isfr-v1",
      });
      expect(body.confidence).toBeGreaterThan(0.75);
      expect(body.confidence).toBeLessThanOrEqual(1);
    });

    it("still publishes when funding times out and one pool returns garbage, with lower confidence", async () => {
      const h = await start();
      await h.svc.snapshot();
      const healthy = (await get(h, "/isfr/v1/isfr/current")).body;

      h.clock.t += 3 * HOUR; // the first readings are now stale
      h.funding.rates = "hang";
      yields.respond = (res) =>
        json(res, {
          status: "success",
          data: [
            ...HEALTHY_POOLS.filter((p) => p.project !== "ethena-usde"),
            pool("ethena-usde", "SUSDE", "garbage"),
          ],
        });
      const started = Date.now();
      await h.svc.snapshot();
      expect(Date.now() - started).toBeLessThan(5_000);

      const { status, body } = await get(h, "/isfr/v1/isfr/current");
      expect(status).toBe(200);
      expect(body.components).toEqual({ lending: 420, structured: null, funding: null, staking: 300 });
      expect(body.class_weights_effective).toEqual({
        lending: 0.75,
        structured: 0,
        funding: 0,
        staking: 0.25,
      });
      expect(body.isfr_bps).toBe(390); // 420 + 0.25·(300 − 420)
      expect(body.confidence).toBeLessThan(healthy.confidence as number);

      const sources = (await get(h, "/isfr/v1/isfr/sources")).body.sources as Record<string, unknown>[];
      const byId = new Map(sources.map((s) => [s.id, s]));
      expect(byId.get("ethena-susde")).toMatchObject({ class: "structured", status: "stale" });
      expect(String(byId.get("ethena-susde")?.error)).toMatch(/implausible APY/);
      expect(String(byId.get("hl-funding-btc")?.error)).toMatch(/timeout/);
      expect(byId.get("aave-v3-usdc")).toMatchObject({
        status: "fresh",
        weight: 0.6,
        last_value_bps: 400,
        error: null,
      });
    });

    it("keeps a source's last reading until it goes stale, then falls back without it", async () => {
      const h = await start();
      await h.svc.snapshot();
      yields.respond = (res) => {
        res.writeHead(200, { "content-type": "text/html" });
        res.end("<html>not json</html>");
      };
      h.clock.t += HOUR;
      await h.svc.snapshot();
      expect((await get(h, "/isfr/v1/isfr/current")).body.components).toMatchObject({ lending: 420 });

      h.clock.t += 2 * HOUR;
      await h.svc.snapshot();
      const { body } = await get(h, "/isfr/v1/isfr/current");
      // Only funding is fresh: flat weighted median of BTC and ETH funding; no lending → fallback.
      expect(body.components).toEqual({ lending: null, structured: null, funding: 985.5, staking: null });
      expect(body.class_weights_effective).toEqual({ lending: 0, structured: 0, funding: 1, staking: 0 });
      expect(body.isfr_bps).toBe(985.5);
      expect((body.detail as Record<string, unknown>).fallback).toBe("no_lending");
      expect(body.confidence).toBeLessThanOrEqual(0.1);
    });

    it("answers 503 JSON when no source has data, or when the latest snapshot is old", async () => {
      const h = await start();
      expect((await get(h, "/isfr/v1/isfr/current")).status).toBe(503);
      const before = (await get(h, "/isfr/v1/isfr/sources")).body;
      expect(before.timestamp).toBeNull();
      expect((before.sources as { status: string }[]).map((s) => s.status)).toEqual(Array(6).fill("missing"));
      h.funding.rates = "fail";
      yields.respond = (res) => json(res, { error: "boom" }, 500);
      await h.svc.snapshot();
      const none = await get(h, "/isfr/v1/isfr/current");
      expect(none.status).toBe(503);
      expect(none.body.error).toMatch(/no fresh source data/);
      expect((await get(h, "/isfr/v1/isfr/history")).body.count).toBe(0);

      h.funding.rates = new Map([["BTC", "0.00001"]]);
      yields.respond = (res) => json(res, { status: "success", data: HEALTHY_POOLS });
      await h.svc.snapshot();
      expect((await get(h, "/isfr/v1/isfr/current")).status).toBe(200);
      h.clock.t += 2 * HOUR + 1000; // no snapshot since: the number would be stale
      const old = await get(h, "/isfr/v1/isfr/current");
      expect(old.status).toBe(503);
      expect(old.body.error).toMatch(/old/);
      expect((await get(h, "/isfr/health")).body).toMatchObject({ status: "degraded", published: false });
    });

    it("serves history, sub-indices and OHLC candles across interval boundaries", async () => {
      const h = await start();
      h.clock.t = Date.parse("2026-03-01T22:00:00Z");
      const lendingApys = [4.0, 6.0, 2.0, 5.0, 3.0];
      for (const apy of lendingApys) {
        yields.respond = (res) =>
          json(res, {
            status: "success",
            data: [pool("aave-v3", "USDC", apy), pool("compound-v3", "USDC", apy)],
          });
        h.funding.rates = new Map();
        await h.svc.snapshot();
        h.clock.t += HOUR;
      }
      // Snapshots at 22:00, 23:00 (Mar 1) and 00:00, 01:00, 02:00 (Mar 2); ISFR = lending only.
      const hist = (await get(h, "/isfr/v1/isfr/history?days=1")).body;
      expect((hist.points as { isfr_bps: number }[]).map((p) => p.isfr_bps)).toEqual([
        400, 600, 200, 500, 300,
      ]);

      const daily = (await get(h, "/isfr/v1/isfr/ohlc?days=7&interval=1D")).body;
      expect(daily.candles).toEqual([
        {
          time: Date.parse("2026-03-01T00:00:00Z") / 1000,
          timestamp: "2026-03-01T00:00:00.000+00:00",
          open: 400,
          high: 600,
          low: 400,
          close: 600,
          count: 2,
        },
        {
          time: Date.parse("2026-03-02T00:00:00Z") / 1000,
          timestamp: "2026-03-02T00:00:00.000+00:00",
          open: 200,
          high: 500,
          low: 200,
          close: 300,
          count: 3,
        },
      ]);
      const fourHourly = (await get(h, "/isfr/v1/isfr/ohlc?interval=4H")).body;
      expect((fourHourly.candles as unknown[]).length).toBe(2); // 20:00–24:00 and 00:00–04:00
      expect((await get(h, "/isfr/v1/isfr/ohlc")).body.interval).toBe("1D");

      const sub = (await get(h, "/isfr/v1/isfr/subindex/lending")).body;
      expect(sub).toMatchObject({ class: "lending", value_bps: 300, weight_effective: 1 });
      expect((sub.history as unknown[]).length).toBe(5);
      expect((sub.sources as unknown[]).length).toBe(2);
      expect((await get(h, "/isfr/v1/isfr/subindex/funding")).body.value_bps).toBeNull();
    });

    it("rejects bad parameters and unknown classes with JSON errors", async () => {
      const h = await start();
      await h.svc.snapshot();
      for (const q of ["days=0", "days=366", "days=abc", "days=1.5"]) {
        const r = await get(h, `/isfr/v1/isfr/history?${q}`);
        expect(r.status, q).toBe(400);
        expect(r.body.error).toMatch(/days/);
      }
      expect((await get(h, "/isfr/v1/isfr/history?days=365")).status).toBe(200);
      expect((await get(h, "/isfr/v1/isfr/history")).body.days).toBe(30);
      const badInterval = await get(h, "/isfr/v1/isfr/ohlc?interval=2H");
      expect(badInterval.status).toBe(400);
      expect(badInterval.body.error).toMatch(/interval/);
      expect((await get(h, "/isfr/v1/isfr/subindex/treasury")).status).toBe(404);
      expect((await get(h, "/isfr/v1/isfr/nope")).status).toBe(404);
    });

    it("serves the ISFR page with its chart script, health and CORS", async () => {
      const h = await start();
      const page = await fetch(`${h.base}/isfr/`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain("/isfr/vendor/lightweight-charts.js");
      const lib = await fetch(`${h.base}/isfr/vendor/lightweight-charts.js`);
      expect(lib.status).toBe(200);
      expect(await lib.text()).toContain("LightweightCharts");
      expect((await fetch(`${h.base}/isfr/assets/app.js`)).status).toBe(200);
      const pre = await fetch(`${h.base}/isfr/v1/isfr/current`, { method: "OPTIONS" });
      expect(pre.status).toBe(204);
      expect(pre.headers.get("access-control-allow-origin")).toBe("*");
      await h.svc.snapshot();
      const health = await get(h, "/isfr/health");
      expect(health.body).toMatchObject({
        status: "ok",
        version: "isfr-v1",
        published: true,
        sources_fresh: 6,
      });
    });
  });
});

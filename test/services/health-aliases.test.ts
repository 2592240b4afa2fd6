import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { TickFeed } from "../../src/services/feeds/live.ts";
import { createFeedOrigin } from "../../src/services/feeds/origin.ts";
import { FEEDS } from "../../src/services/feeds/profiles.ts";
import { isfrConfig } from "../../src/services/isfr/config.ts";
import { createIsfrService } from "../../src/services/isfr/service.ts";

/** GET /health answers on every service, with the same body as the contract's own health path. */
const dir = mkdtempSync(join(tmpdir(), "hl-health-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("health aliases", () => {
  it("a feed origin answers /health as /healthz", async () => {
    const feed: TickFeed = {
      def: FEEDS.btcswp,
      latest: async () => undefined,
      ticks: async () => [],
      onTick: () => () => undefined,
    };
    const { app } = createFeedOrigin(feed);
    const healthz = await app.inject({ method: "GET", url: "/healthz" });
    const health = await app.inject({ method: "GET", url: "/health" });
    expect(health.statusCode).toBe(200);
    expect(health.json()).toEqual(healthz.json());
    expect(health.json()).toMatchObject({ status: "ok", feed: "BTCSWP" });
    await app.close();
  });

  it("ISFR answers /health as /isfr/health", async () => {
    const svc = createIsfrService(isfrConfig({ DATA_DIR: dir, YIELDS_API_URL: "http://127.0.0.1:9" }), {
      funding: { hourlyFunding: () => Promise.reject(new Error("not asked")) },
      now: () => Date.UTC(2026, 0, 1),
    });
    const own = await svc.app.inject({ method: "GET", url: "/isfr/health" });
    const health = await svc.app.inject({ method: "GET", url: "/health" });
    expect(health.statusCode).toBe(200);
    expect(health.json()).toEqual(own.json());
    expect(health.json()).toMatchObject({ status: "degraded", published: false });
    await svc.close();
  });
});

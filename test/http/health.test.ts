import { describe, expect, it } from "vitest";
import { createHttpApp } from "../../src/http/app.ts";
import { type HealthFacts, ServiceHealth, soleWriter, storeProbe } from "../../src/http/health.ts";

function serve(health: ServiceHealth) {
  const app = createHttpApp({ name: "probe" });
  health.serve(app, ["/health", "/probe/health"]);
  return app;
}

describe("service health", () => {
  it("keeps the contract's fields and adds store, writers and the oldest last refresh", async () => {
    const health = new ServiceHealth(() => ({ status: "ok", uptime_s: 3 }));
    health.register(storeProbe(async () => undefined));
    const writer = { lease: "leaderboard:schedule", role: "writer", term: "12", since: 1_000 } as const;
    health.register({
      health: (): HealthFacts => ({ writers: [writer], lastRefreshMs: Date.UTC(2026, 0, 1, 12) }),
    });
    health.register({ health: () => ({ lastRefreshMs: Date.UTC(2026, 0, 1, 11) }) });
    const app = serve(health);
    for (const url of ["/health", "/probe/health"]) {
      const res = await app.inject({ method: "GET", url });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        status: "ok",
        uptime_s: 3,
        store: "ok",
        writers: [writer],
        // One job: its role alone too.
        writer: { role: "writer", term: "12", since: 1_000 },
        last_refresh: "2026-01-01T11:00:00.000Z",
        last_refresh_at: Date.UTC(2026, 0, 1, 11),
      });
    }
  });

  it("a service writing several jobs lists each, with no single writer; a lone process is the writer", async () => {
    const health = new ServiceHealth(() => ({ status: "ok" }));
    health.register(soleWriter("feeds:BTCSWP", 5));
    health.register({
      health: () => ({ writers: [{ lease: "feeds:HYPESWP", role: "follower", term: null, since: 7 }] }),
    });
    expect((await serve(health).inject({ method: "GET", url: "/health" })).json()).toEqual({
      status: "ok",
      writers: [
        { lease: "feeds:BTCSWP", role: "writer", term: null, since: 5 },
        { lease: "feeds:HYPESWP", role: "follower", term: null, since: 7 },
      ],
    });
  });

  it("answers 503 while a store is down, thrown, or too slow to answer; last_refresh is null before the first", async () => {
    for (const check of [
      () => Promise.reject(new Error("connect ECONNREFUSED")),
      () => new Promise(() => undefined), // hangs
    ]) {
      const health = new ServiceHealth(() => ({ status: "ok", uptime_s: 1 }), { sourceTimeoutMs: 50 });
      health.register(storeProbe(check));
      health.register({ health: () => ({ lastRefreshMs: null }) });
      const res = await serve(health).inject({ method: "GET", url: "/health" });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({
        status: "unavailable",
        uptime_s: 1,
        store: "down",
        last_refresh: null,
        last_refresh_at: null,
      });
    }
  });

  it("a service without a store or a writer answers its contract fields alone", async () => {
    const res = await serve(new ServiceHealth(() => ({ status: "ok", uptime_s: 0 }))).inject({
      method: "GET",
      url: "/health",
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: "ok", uptime_s: 0 });
  });
});

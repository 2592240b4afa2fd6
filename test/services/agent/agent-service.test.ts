import { createServer } from "node:http";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { StateStore } from "../../../src/engine/state-store.ts";
import { openSse, recordingGuard, startTestAgent, tempDataDir, waitFor } from "./helpers.ts";

type Started = Awaited<ReturnType<typeof startTestAgent>>;
let running: Started[] = [];
async function start(...args: Parameters<typeof startTestAgent>) {
  const s = await startTestAgent(...args);
  running.push(s);
  return s;
}
afterEach(async () => {
  await Promise.all(running.map((s) => s.svc.close()));
  running = [];
});

const json = async (url: string, init?: RequestInit) => {
  const res = await fetch(url, init);
  return { res, body: (await res.json()) as Record<string, unknown> };
};
const tickOf = async (base: string) => (await json(`${base}/api/status`)).body.tick_count as number;

describe("agent service", () => {
  it("/health reports the supervised child", async () => {
    const { base } = await start({});
    const { res, body } = await json(`${base}/health`);
    expect(res.status).toBe(200);
    expect(body).toMatchObject({ status: "ok", mode: "wolf", alive: true, paused: false });
    expect(typeof body.pid).toBe("number");
    expect(Number.isInteger(body.uptime_s)).toBe(true);
  });

  it("/health shows WOLF's price stream as the child saved it (null when it says nothing)", async () => {
    const degraded = await start({}, {}, { PRICE_STREAM: "degraded" });
    await waitFor(async () =>
      (await json(`${degraded.base}/health`)).body.price_stream === "degraded" ? true : undefined,
    );
    const silent = await start({});
    expect((await json(`${silent.base}/health`)).body.price_stream).toBeNull();
  });

  it("/health lists a slot whose exchange stop was refused as unprotected", async () => {
    const backstop = {
      status: "refused",
      cloid: "0x01",
      oid: null,
      triggerPx: "20",
      size: "5",
      updatedMs: 1,
    };
    const slots = [
      { slot_id: 0, instrument: "VXX-USDYP", status: "active", backstop },
      {
        slot_id: 1,
        instrument: "ETH-PERP",
        status: "active",
        backstop: { ...backstop, status: "resting", oid: 7 },
      },
    ];
    const { base } = await start({}, {}, { SLOTS_JSON: JSON.stringify(slots) });
    const unprotected = await waitFor(async () => {
      const u = (await json(`${base}/health`)).body.unprotected as unknown[];
      return u.length > 0 ? u : undefined;
    });
    expect(unprotected).toEqual([{ slot_id: 0, instrument: "VXX-USDYP", backstop: "refused" }]);
  });

  it("/api/status is read from the child's state and is 'stopped' with no child", async () => {
    const { base } = await start({});
    await waitFor(async () => ((await tickOf(base)) >= 2 ? true : undefined));
    const mcp = await start({ RUN_MODE: "mcp" });
    expect((await json(`${mcp.base}/api/status`)).body).toEqual({ status: "stopped" });
    const health = (await json(`${mcp.base}/health`)).body;
    expect(health).toMatchObject({ mode: "mcp", pid: null, alive: false });
  });

  it("sends the contract's CORS headers on /api/* and answers OPTIONS on any path with 204", async () => {
    const { base } = await start({ CORS_ORIGIN: "https://example.test" });
    const res = await fetch(`${base}/api/status`);
    expect(res.headers.get("access-control-allow-origin")).toBe("https://example.test");
    expect(res.headers.get("access-control-allow-methods")).toBe("GET, POST, OPTIONS");
    expect(res.headers.get("access-control-allow-headers")).toBe("Content-Type, Authorization");
    for (const path of ["/api/pause", "/anything/else", "/health"]) {
      const opt = await fetch(`${base}${path}`, { method: "OPTIONS" });
      expect(opt.status).toBe(204);
      expect(opt.headers.get("access-control-allow-origin")).toBe("https://example.test");
    }
  });

  it("pause stops the ticks and resume restarts them", async () => {
    const { base } = await start({});
    await waitFor(async () => ((await tickOf(base)) >= 1 ? true : undefined));
    const p = await json(`${base}/api/pause`, { method: "POST" });
    expect(p.res.status).toBe(200);
    expect(p.body).toEqual({ status: "paused" });
    expect((await json(`${base}/health`)).body.paused).toBe(true);
    const before = await tickOf(base);
    await new Promise((r) => setTimeout(r, 500));
    expect(await tickOf(base)).toBe(before);
    expect((await json(`${base}/api/status`)).body.status).toBe("running");
    const r = await json(`${base}/api/resume`, { method: "POST" });
    expect(r.body).toEqual({ status: "resumed" });
    await waitFor(async () => ((await tickOf(base)) > before ? true : undefined));
  });

  it("refuses pause without a child and resume with nothing paused (409 JSON)", async () => {
    const mcp = await start({ RUN_MODE: "mcp" });
    const p = await json(`${mcp.base}/api/pause`, { method: "POST" });
    expect(p.res.status).toBe(409);
    expect(p.body).toEqual({ error: "No running agent to pause" });
    const { base } = await start({});
    const r = await json(`${base}/api/resume`, { method: "POST" });
    expect(r.res.status).toBe(409);
    expect(r.body).toEqual({ error: "No paused agent to resume" });
  });

  it("requires the bearer token on control endpoints when AGENT_API_TOKEN is set", async () => {
    const { base } = await start({ AGENT_API_TOKEN: "s3cret" });
    for (const path of ["/api/pause", "/api/resume", "/api/skill/install"]) {
      const none = await json(`${base}${path}`, { method: "POST" });
      expect(none.res.status).toBe(401);
      expect(typeof none.body.error).toBe("string");
      const wrong = await json(`${base}${path}`, {
        method: "POST",
        headers: { Authorization: "Bearer nope" },
      });
      expect(wrong.res.status).toBe(401);
    }
    const ok = await json(`${base}/api/skill/install`, {
      method: "POST",
      headers: { Authorization: "Bearer s3cret", "Content-Type": "application/json" },
    });
    expect(ok.res.status).toBe(200);
    expect(ok.body).toEqual({ installed: true, strategies: 14, tools: 17 });
    // read endpoints stay open
    expect((await fetch(`${base}/api/status`)).status).toBe(200);
  });

  it("serves plain-text status and JSON errors for unknown paths", async () => {
    const { base } = await start({});
    await waitFor(async () => ((await tickOf(base)) >= 1 ? true : undefined));
    const res = await fetch(`${base}/status`);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(await res.text()).toMatch(/^WOLF test\nTick \d+\n$/);
    const nf = await json(`${base}/nope`);
    expect(nf.res.status).toBe(404);
    expect(typeof nf.body.error).toBe("string");
  });

  it("restarts a crashed child with back-off and keeps /health at 200; the operator is alerted", async () => {
    const alerts: [string, string][] = [];
    const alerter = {
      send: (e: string, t: string) => void alerts.push([e, t]),
      flush: async () => undefined,
    };
    const { base, svc } = await start({}, { alerter }, { EXIT_AFTER: "2", EXIT_CODE: "3" });
    await waitFor(() => (svc.supervisor!.restartCount >= 1 ? true : undefined), 8000);
    const h = await json(`${base}/health`);
    expect(h.res.status).toBe(200);
    expect(alerts[0]).toEqual([
      "crash",
      "trading job crashed (exit 3); restarted at once (crash 1 in a row)",
    ]);
  });

  it("/health shows the wait before the next restart while backing off, null otherwise", async () => {
    const { base } = await start(
      {},
      { supervisor: { baseBackoffMs: 4000 } },
      { EXIT_AFTER: "1", EXIT_CODE: "3", TICK_MS: "20" },
    );
    expect((await json(`${base}/health`)).body.restart_in_s).toBeNull();
    // crash 1 restarts at once, crash 2 waits 4 s
    const waiting = await waitFor(async () => {
      const h = (await json(`${base}/health`)).body;
      return typeof h.restart_in_s === "number" && h.restart_in_s > 0 ? h : undefined;
    });
    expect(waiting.restart_in_s as number).toBeLessThanOrEqual(4);
    expect(waiting.restart_in_s as number).toBeGreaterThan(2);
    expect(waiting).toMatchObject({ alive: false, supervisor: "backoff" });
    // …and the dashboard's sentence says why nothing trades (the last crash and the wait).
    expect(waiting.last_crash).toEqual({ reason: "exit 3", crashes: 2 });
    expect(waiting.stop_notice).toMatch(
      /^The trading job crashed \(exit 3; crash 2 in a row\): restart in [34] s;/,
    );
  });

  it("a job that finished on its own is not restarted, and /health says so", async () => {
    const { base, svc } = await start({}, {}, { EXIT_AFTER: "1", EXIT_CODE: "0", TICK_MS: "20" });
    await waitFor(() => (svc.supervisor!.status === "exited" ? true : undefined), 8000);
    expect((await json(`${base}/health`)).body).toMatchObject({
      alive: false,
      supervisor: "exited",
      stop_notice: "The trading job finished on its own (exit 0) and is not restarted.",
    });
  });

  it("gives up on a child that keeps crashing into protect-only mode: guard job started, alerted, /health says so", async () => {
    const alerts: string[] = [];
    const events: string[] = [];
    const alerter = { send: (e: string) => void alerts.push(e), flush: async () => undefined };
    const { svc, base } = await start(
      // the restart policy comes from the environment
      { HL_SUPERVISOR_MAX_RESTARTS: "1" },
      { alerter, startGuard: recordingGuard(events) },
      { EXIT_AFTER: "1", EXIT_CODE: "3" },
    );
    await waitFor(() => (svc.supervisor!.status === "gave_up" ? true : undefined), 15_000);
    expect(alerts).toEqual(["crash", "protect_only"]);
    expect(events).toEqual(["guard started"]);
    const h = (await json(`${base}/health`)).body;
    expect(h).toMatchObject({
      alive: false,
      supervisor: "protect_only",
      guardian: { active: true, reason: "protect_only" },
    });
  });

  it("a long restart back-off is covered by the guard job, stopped before the new child starts", async () => {
    const events: string[] = [];
    const { svc, base } = await start(
      {},
      {
        startGuard: recordingGuard(events),
        guardDuringBackoffMs: 300,
        supervisor: { baseBackoffMs: 600 },
      },
      { EXIT_AFTER: "1", EXIT_CODE: "3" },
    );
    // crash 1 restarts at once; crash 2 waits 600 ms, guarded
    const during = await waitFor(async () => {
      const h = (await json(`${base}/health`)).body as { guardian: { reason: string | null } };
      return h.guardian.reason === "restarting" ? h : undefined;
    }, 8000);
    expect(during).toMatchObject({ supervisor: "backoff", guardian: { active: true } });
    await waitFor(() => (svc.supervisor!.restartCount >= 2 ? true : undefined), 8000);
    expect(events.slice(0, 2)).toEqual(["guard started", "guard stopped"]);
  });

  it("a paused trader that is killed: the guard job stops before its successor starts", async () => {
    const events: string[] = [];
    const { svc, base } = await start({}, { startGuard: recordingGuard(events) });
    const pid = svc.supervisor!.pid!;
    expect((await json(`${base}/api/pause`, { method: "POST" })).res.status).toBe(200);
    process.kill(pid, "SIGKILL");
    await waitFor(
      () => (svc.supervisor!.restartCount >= 1 && svc.supervisor!.alive ? true : undefined),
      8000,
    );
    expect(events).toEqual(["guard started", "guard stopped"]);
    expect((await json(`${base}/health`)).body).toMatchObject({ paused: false, guardian: { active: false } });
  });

  it("pause keeps the positions guarded: guard job while paused, stopped before the trader continues", async () => {
    const events: string[] = [];
    const alerts: string[] = [];
    const alerter = { send: (e: string) => void alerts.push(e), flush: async () => undefined };
    const { svc, base } = await start(
      { AGENT_PAUSE_ALERT_S: "0.2" },
      { alerter, startGuard: recordingGuard(events, () => svc.supervisor!.paused) },
    );
    expect((await json(`${base}/api/pause`, { method: "POST" })).body).toEqual({ status: "paused" });
    const h = (await json(`${base}/health`)).body;
    expect(h).toMatchObject({ paused: true, guardian: { active: true, reason: "paused" } });
    expect(events).toEqual(["guard started"]);
    // a long pause is alerted
    await waitFor(() => (alerts.includes("paused") ? true : undefined), 3000);
    expect((await json(`${base}/api/resume`, { method: "POST" })).body).toEqual({ status: "resumed" });
    expect(events).toEqual(["guard started", "guard stopped (trader still paused)"]);
    const after = (await json(`${base}/health`)).body;
    expect(after).toMatchObject({ paused: false, paused_for_s: null, guardian: { active: false } });
  });

  it("a job that cannot even be started is retried, given up on and alerted; the service stays up", async () => {
    const alerts: [string, string][] = [];
    const alerter = {
      send: (e: string, t: string) => void alerts.push([e, t]),
      flush: async () => undefined,
    };
    // An environment over the kernel's per-string limit: spawn itself fails (E2BIG).
    const { base, svc } = await start(
      {},
      { alerter, supervisor: { maxRestarts: 2, baseBackoffMs: 50 } },
      { HUGE: "x".repeat(200_000) },
    );
    await waitFor(() => (svc.supervisor!.status === "gave_up" ? true : undefined), 5000);
    expect(alerts.map(([e]) => e)).toEqual(["crash", "crash", "protect_only"]);
    expect(alerts[2]![1]).toMatch(/gave up .*after 3 crashes in a row \(last: could not start: .*E2BIG/);
    const h = await json(`${base}/health`);
    expect(h.res.status).toBe(200);
    expect(h.body).toMatchObject({ alive: false, supervisor: "protect_only", restart_in_s: null });
  });

  it("does not restart a strategy engine that stopped itself on a risk hard stop; /health says why", async () => {
    const alerts: [string, string][] = [];
    const alerter = {
      send: (e: string, t: string) => void alerts.push([e, t]),
      flush: async () => undefined,
    };
    const dataDir = tempDataDir();
    const store = StateStore.inDir(join(dataDir, "cli"));
    store.save({ run: { status: "halted", halt_reason: "hard drawdown 12.50" } });
    store.close();
    const { base, svc } = await start(
      { RUN_MODE: "strategy", DATA_DIR: dataDir },
      { alerter },
      { EXIT_AFTER: "1", EXIT_CODE: "1" },
    );
    await waitFor(() => (svc.supervisor!.status === "halted" ? true : undefined), 8000);
    await new Promise((r) => setTimeout(r, 300));
    expect(svc.supervisor!.restartCount).toBe(0);
    expect((await json(`${base}/health`)).body).toMatchObject({
      alive: false,
      supervisor: "halted",
      halt_reason: "hard drawdown 12.50",
    });
    expect(alerts).toEqual([
      ["halt", "trading job stopped on a risk hard stop (hard drawdown 12.50); not restarted"],
    ]);
  });

  it("does not restart a child that finished cleanly; status becomes stopped", async () => {
    const { base, svc } = await start({}, {}, { EXIT_AFTER: "2", EXIT_CODE: "0" });
    await waitFor(() => (svc.supervisor!.status === "exited" ? true : undefined), 8000);
    expect(svc.supervisor!.restartCount).toBe(0);
    expect((await json(`${base}/api/status`)).body).toEqual({ status: "stopped" });
    expect((await json(`${base}/health`)).body.alive).toBe(false);
  });
});

describe("agent SSE feed", () => {
  it("emits the current status at once, then only when tick_count advances, with no event name", async () => {
    const { base } = await start({});
    const sse = await openSse(`${base}/api/feed`);
    expect(sse.headers["content-type"]).toBe("text/event-stream");
    expect(sse.headers["cache-control"]).toBe("no-cache");
    expect(sse.headers["x-accel-buffering"]).toBe("no");
    expect(sse.headers["access-control-allow-origin"]).toBe("*");
    await waitFor(() => (sse.events.length >= 3 ? true : undefined));
    const data = sse.events.filter((e) => !e.startsWith(":"));
    for (const e of data) {
      expect(e.startsWith("data: ")).toBe(true);
      expect(e).not.toMatch(/^event:/m);
    }
    const ticks = data.map((e) => (JSON.parse(e.slice(6)) as { tick_count?: number }).tick_count ?? 0);
    for (let i = 1; i < ticks.length; i++) expect(ticks[i]).not.toBe(ticks[i - 1]);
    sse.close();
  });

  it("does not repeat an unchanged tick while paused, and cleans up disconnected clients", async () => {
    const { base, svc } = await start({});
    const sse = await openSse(`${base}/api/feed`);
    await waitFor(() => (sse.events.length >= 1 ? true : undefined));
    await fetch(`${base}/api/pause`, { method: "POST" });
    await new Promise((r) => setTimeout(r, 300));
    const n = sse.events.length;
    await new Promise((r) => setTimeout(r, 500));
    expect(sse.events.length).toBe(n);
    expect(svc.feed.clients).toBe(1);
    sse.close();
    await waitFor(() => (svc.feed.clients === 0 ? true : undefined));
  });

  it("answers /health within 50 ms while 100 SSE clients are connected", async () => {
    const { base } = await start({});
    const clients = await Promise.all(Array.from({ length: 100 }, () => openSse(`${base}/api/feed`)));
    await waitFor(() => (clients.every((c) => c.events.length >= 1) ? true : undefined));
    const times: number[] = [];
    for (let i = 0; i < 10; i++) {
      const t0 = performance.now();
      const res = await fetch(`${base}/health`);
      await res.json();
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    expect(times[Math.floor(times.length / 2)]).toBeLessThan(50);
    for (const c of clients) c.close();
  });
});

describe("AI gateway hosting variant", () => {
  it("proxies unknown paths to the gateway and answers 502 JSON when it is down", async () => {
    const gw = createServer((req, res) => {
      res.writeHead(200, { "Content-Type": "text/plain" });
      res.end(`gateway saw ${req.method} ${req.url}`);
    });
    await new Promise<void>((r) => gw.listen(0, "127.0.0.1", r));
    const port = (gw.address() as { port: number }).port;
    const { base } = await start({ AI_GATEWAY_URL: `http://127.0.0.1:${port}` });
    const res = await fetch(`${base}/chat/x?y=1`);
    expect(await res.text()).toBe("gateway saw GET /chat/x?y=1");
    expect((await fetch(`${base}/health`)).status).toBe(200);
    await new Promise<void>((r) => gw.close(() => r()));
    const down = await fetch(`${base}/chat/x`);
    expect(down.status).toBe(502);
    expect(((await down.json()) as { error: string }).error).toMatch(/gateway/i);
  });
});

import { request } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { answersToHost } from "../../../src/services/agent/auth.ts";
import { startTestAgent, waitFor } from "./helpers.ts";

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

/** A raw POST, so Host and Origin can be whatever a browser page (or a rebound DNS name) would send. */
function post(
  port: number,
  path: string,
  headers: Record<string, string>,
  body = "",
): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path,
        method: "POST",
        headers: { ...headers, "content-length": body.length },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => {
          text += c;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

const CONTROL = ["/api/pause", "/api/resume", "/api/skill/install"];

async function tick(base: string): Promise<number> {
  const s = (await (await fetch(`${base}/api/status`)).json()) as { tick_count?: number };
  return s.tick_count ?? 0;
}

describe("control endpoints and the browser", () => {
  it("refuses cross-origin text/plain POSTs to pause, resume and skill-install; the child keeps running", async () => {
    let installs = 0;
    const { svc, base } = await start(
      {},
      {
        skillInstall: async () => {
          installs++;
          return { installed: true, strategies: 14, tools: 17 };
        },
      },
    );
    const host = `127.0.0.1:${svc.port}`;
    await waitFor(async () => ((await tick(base)) >= 1 ? true : undefined));
    for (const path of CONTROL) {
      const r = await post(
        svc.port,
        path,
        { Host: host, Origin: "https://evil.example", "Content-Type": "text/plain" },
        "x",
      );
      expect(r.status, path).toBe(403);
      expect(r.body.error, path).toMatch(/origin/i);
    }
    expect(installs).toBe(0);
    expect(svc.supervisor!.paused).toBe(false);
    const before = await tick(base);
    await waitFor(async () => ((await tick(base)) > before ? true : undefined));
    const health = (await (await fetch(`${base}/health`)).json()) as Record<string, unknown>;
    expect(health).toMatchObject({ alive: true, paused: false });
  });

  it("refuses an opaque origin (null) and a cross-site fetch that sent no Origin", async () => {
    const { svc } = await start({});
    const host = `127.0.0.1:${svc.port}`;
    const nullOrigin = await post(svc.port, "/api/pause", { Host: host, Origin: "null" });
    expect(nullOrigin.status).toBe(403);
    const crossSite = await post(svc.port, "/api/pause", { Host: host, "Sec-Fetch-Site": "cross-site" });
    expect(crossSite.status).toBe(403);
    expect(svc.supervisor!.paused).toBe(false);
  });

  it("refuses a Host the service does not answer to (DNS rebinding), even from the same 'origin'", async () => {
    const { svc } = await start({});
    const rebound = `attacker.example:${svc.port}`;
    for (const path of CONTROL) {
      const r = await post(svc.port, path, {
        Host: rebound,
        Origin: `http://${rebound}`,
        "Content-Type": "text/plain",
      });
      expect(r.status, path).toBe(403);
      expect(r.body.error, path).toMatch(/host/i);
    }
    expect(svc.supervisor!.paused).toBe(false);
  });

  it("the dashboard's own requests (same origin on a loopback name) and CORS_ORIGIN keep working", async () => {
    const { svc } = await start({ CORS_ORIGIN: "https://dash.example" });
    const port = svc.port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]) {
      const p = await post(port, "/api/pause", { Host: host, Origin: `http://${host}` });
      expect(p, host).toEqual({ status: 200, body: { status: "paused" } });
      const r = await post(port, "/api/resume", { Host: host, Origin: `http://${host}` });
      expect(r, host).toEqual({ status: 200, body: { status: "resumed" } });
    }
    const fromDash = await post(port, "/api/pause", {
      Host: `127.0.0.1:${port}`,
      Origin: "https://dash.example",
    });
    expect(fromDash.status).toBe(200);
    // no Origin at all: curl, scripts
    const curl = await post(port, "/api/resume", { Host: `127.0.0.1:${port}` });
    expect(curl.status).toBe(200);
  });

  it("with AGENT_API_TOKEN the token guards any Host, but a foreign Origin is still refused", async () => {
    const { svc } = await start({ AGENT_API_TOKEN: "s3cret" });
    const auth = { Authorization: "Bearer s3cret" };
    const proxied = await post(svc.port, "/api/pause", { ...auth, Host: "agent.example.com" });
    expect(proxied).toEqual({ status: 200, body: { status: "paused" } });
    const foreign = await post(svc.port, "/api/resume", {
      ...auth,
      Host: "agent.example.com",
      Origin: "https://evil.example",
    });
    expect(foreign.status).toBe(403);
    expect(svc.supervisor!.paused).toBe(true);
  });
});

describe("names a loopback-only service answers to", () => {
  it("IP literals, localhost names and the machine's own name; no other DNS name", () => {
    for (const h of ["127.0.0.1:8080", "[::1]:8080", "192.168.1.20:8080", "localhost", "app.localhost:8080"])
      expect(answersToHost(h, "box"), h).toBe(true);
    expect(answersToHost("BOX:8080", "box")).toBe(true);
    for (const h of ["attacker.example:8080", "127.0.0.1.nip.io:8080", "localhost.evil.example", "", "a b"])
      expect(answersToHost(h, "box"), h).toBe(false);
  });
});

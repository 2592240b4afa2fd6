import { get, request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setLogSink } from "../../src/core/log.ts";
import { createHttpApp, type HttpApp } from "../../src/http/app.ts";
import { HttpError } from "../../src/http/errors.ts";
import { json, send, TAKEN_OVER } from "../../src/http/reply.ts";

/**
 * HttpApp, the node:http service base: routing, JSON `{error}` answers for every failure, guards
 * before the body, CORS, metrics by route pattern, and a close that cuts open streams.
 */
let app: HttpApp;
let base = "";
let guardedBodies = 0;

beforeAll(async () => {
  app = createHttpApp({
    name: "probe",
    corsOrigin: "https://site.example",
    corsPaths: (url) => url.startsWith("/api/"),
  });
  app.get("/api/echo", (req) => json({ q: req.query.get("q"), path: req.path }));
  app.post("/api/echo", (req) => json({ body: req.body ?? null }));
  app.get("/files/*", (req) => send(req.rest, "text/plain; charset=utf-8"));
  app.get("/files/exact", () => send("exact", "text/plain; charset=utf-8"));
  app.get("/teapot", () => {
    throw new HttpError(418, "short and stout");
  });
  app.get("/broken", async () => {
    throw new Error("secret detail at /srv/app.js:1");
  });
  app.post(
    "/guarded",
    (req) => {
      guardedBodies += 1;
      return json({ body: req.body ?? null });
    },
    {
      guard: (req) => {
        if (req.headers["x-key"] !== "k") throw new HttpError(401, "key required");
      },
    },
  );
  app.get("/stream", (req) => {
    req.res.writeHead(200, { "content-type": "text/event-stream" });
    req.res.write(": open\n\n");
    return TAKEN_OVER;
  });
  base = `http://127.0.0.1:${await app.listen(0)}`;
});

afterAll(async () => {
  await app.close();
});

describe("HttpApp", () => {
  it("routes exact paths before prefixes, decodes a prefix's rest, and reads the query", async () => {
    expect(await (await fetch(`${base}/files/exact`)).text()).toBe("exact");
    expect(await (await fetch(`${base}/files/a%20b/c.txt`)).text()).toBe("a b/c.txt");
    expect(await (await fetch(`${base}/api/echo?q=x%20y`)).json()).toEqual({ q: "x y", path: "/api/echo" });
  });

  it("puts the CORS headers on the chosen paths only, and answers OPTIONS anywhere with 204", async () => {
    const api = await fetch(`${base}/api/echo`);
    expect(api.headers.get("access-control-allow-origin")).toBe("https://site.example");
    const other = await fetch(`${base}/files/exact`);
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
    const options = await fetch(`${base}/nowhere`, { method: "OPTIONS" });
    expect(options.status).toBe(204);
    expect(options.headers.get("access-control-allow-methods")).toBe("GET, POST, OPTIONS");
    expect(options.headers.get("access-control-allow-headers")).toBe("Content-Type, Authorization");
  });

  it("answers an HttpError with its status and message, anything else with a 500 that hides it", async () => {
    const teapot = await fetch(`${base}/teapot`);
    expect(teapot.status).toBe(418);
    expect(await teapot.json()).toEqual({ error: "short and stout" });
    const lines: string[] = [];
    const previous = setLogSink({ write: (line) => lines.push(line) });
    const broken = await fetch(`${base}/broken`);
    expect(broken.status).toBe(500);
    expect(broken.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(await broken.text()).toBe('{"error":"Internal server error"}');
    setLogSink(previous);
    // The cause is logged, as one JSON line naming the request.
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: "error", event: "request_failed", path: "/broken" });
  });

  it("parses JSON bodies and refuses a guarded request before reading its body", async () => {
    const echoed = await fetch(`${base}/api/echo`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"a":[1,2]}',
    });
    expect(await echoed.json()).toEqual({ body: { a: [1, 2] } });
    const refused = await fetch(`${base}/guarded`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{not json",
    });
    expect(refused.status).toBe(401);
    expect(await refused.json()).toEqual({ error: "key required" });
    expect(guardedBodies).toBe(0);
    const allowed = await fetch(`${base}/guarded`, {
      method: "POST",
      headers: { "content-type": "text/plain", "x-key": "k" },
      body: "hello",
    });
    expect(await allowed.json()).toEqual({ body: "hello" });
  });

  it("counts requests under the route pattern (never the raw path) in /metrics", async () => {
    const served = async () => {
      const text = await (await fetch(`${base}/metrics`)).text();
      const count =
        /http_requests_total\{method="GET",route="\/files\/\*",status_code="200",service="probe"\} (\d+)\n/;
      return { text, n: Number(count.exec(text)?.[1] ?? 0) };
    };
    const before = (await served()).n;
    await (await fetch(`${base}/files/one`)).text();
    await (await fetch(`${base}/files/two`)).text();
    const { text, n } = await served();
    expect(n - before).toBe(2);
    expect(text).not.toContain('route="/files/one"');
    expect(text).toMatch(/route="unmatched",status_code="204"/);
  });

  it("close ends open streams and stops listening", async () => {
    const other = createHttpApp({ name: "closing" });
    other.get("/stream", (req) => {
      req.res.writeHead(200, { "content-type": "text/event-stream" });
      req.res.write(": open\n\n");
      return TAKEN_OVER;
    });
    let hookRan = false;
    other.onClose(() => {
      hookRan = true;
    });
    const port = await other.listen(0);
    const ended = new Promise<void>((resolve) => {
      get(`http://127.0.0.1:${port}/stream`, (res) => {
        res.once("data", () => void other.close());
        res.on("close", () => resolve());
        res.resume();
      });
    });
    await ended;
    expect(hookRan).toBe(true);
    const refused = await new Promise<string>((resolve) => {
      const req = request({ host: "127.0.0.1", port, path: "/stream" }, () => resolve("answered"));
      req.on("error", (e: NodeJS.ErrnoException) => resolve(e.code ?? "error"));
      req.end();
    });
    expect(refused).toBe("ECONNREFUSED");
  });
});

// One HTTP stack serving the same two routes, for bench/http-stack.bench.ts: `GET /health` (a small
// JSON object built per request, as a health route does) and `GET /items/:id` (a route parameter).
// STACK: bare | router | fastify | hono. Plain node, no loader: our router runs from the build
// (dist/http). Prints `{"port":N}` once listening; SIGTERM stops it.
import { createServer } from "node:http";

const stack = process.env.STACK ?? "bare";
const started = Date.now();
const health = () => ({
  status: "ok",
  uptime_s: Math.floor((Date.now() - started) / 1000),
  pid: process.pid,
});

async function listenBare() {
  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    const body =
      path === "/health"
        ? JSON.stringify(health())
        : path.startsWith("/items/")
          ? JSON.stringify({ id: path.slice(7) })
          : undefined;
    if (body === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    res.end(body);
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  process.once("SIGTERM", () => server.close(() => process.exit(0)));
  return server.address().port;
}

async function listenRouter() {
  const { createHttpApp } = await import("../../dist/http/app.js");
  const { json } = await import("../../dist/http/reply.js");
  const app = createHttpApp({ name: "bench" });
  app.get("/health", () => json(health()));
  app.get("/items/*", (req) => json({ id: req.rest }));
  process.once("SIGTERM", () => void app.close().then(() => process.exit(0)));
  return app.listen(0);
}

async function listenFastify() {
  const { default: Fastify } = await import("fastify");
  const app = Fastify({ logger: false });
  app.get("/health", async () => health());
  app.get("/items/:id", async (req) => ({ id: req.params.id }));
  await app.listen({ port: 0, host: "127.0.0.1" });
  process.once("SIGTERM", () => void app.close().then(() => process.exit(0)));
  return app.server.address().port;
}

async function listenHono() {
  const { Hono } = await import("hono");
  const { serve } = await import("@hono/node-server");
  const app = new Hono();
  app.get("/health", (c) => c.json(health()));
  app.get("/items/:id", (c) => c.json({ id: c.req.param("id") }));
  return new Promise((resolve) => {
    const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info) => resolve(info.port));
    process.once("SIGTERM", () => server.close(() => process.exit(0)));
  });
}

const listeners = { bare: listenBare, router: listenRouter, fastify: listenFastify, hono: listenHono };
const listen = listeners[stack];
if (!listen) throw new Error(`STACK must be one of ${Object.keys(listeners).join(", ")}`);
process.stdout.write(`${JSON.stringify({ port: await listen() })}\n`);

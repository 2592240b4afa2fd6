import { createServer, request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestAgent } from "./helpers.ts";

/**
 * The agent service's answers at the edges of HTTP: request bodies it refuses, HEAD, malformed
 * paths, and what the AI gateway variant forwards. Every failure is a JSON `{error}`.
 */
type Started = Awaited<ReturnType<typeof startTestAgent>>;
let agent: Started;

beforeAll(async () => {
  agent = await startTestAgent({}, {}, { TICK_MS: "100000" });
});
afterAll(async () => {
  await agent.svc.close();
});

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** A raw request, so the body, its framing and the path are exactly what is written here. */
function send(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string | number> = {},
  body?: string | string[],
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, method, path, headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => {
        text += c;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on("error", reject);
    if (Array.isArray(body)) {
      for (const chunk of body) req.write(chunk);
      req.end();
    } else req.end(body);
  });
}

const errorOf = (a: Answer) => (JSON.parse(a.text) as { error: unknown }).error;

describe("agent service request bodies", () => {
  it("a malformed JSON body is 400, an unsupported type 415, both as JSON with the CORS headers", async () => {
    const { port } = agent.svc;
    const bad = await send(port, "POST", "/api/resume", { "content-type": "application/json" }, "{bad");
    expect(bad.status).toBe(400);
    expect(bad.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(bad.headers["access-control-allow-origin"]).toBe("*");
    expect(errorOf(bad)).toBe("Invalid JSON body");
    const form = await send(
      port,
      "POST",
      "/api/resume",
      { "content-type": "application/x-www-form-urlencoded" },
      "a=1",
    );
    expect(form.status).toBe(415);
    expect(errorOf(form)).toBe("Unsupported Media Type");
    const untyped = await send(port, "POST", "/api/resume", { "content-length": 1 }, "x");
    expect(untyped.status).toBe(415);
  });

  it("an empty JSON body and a text body are accepted (the handler answers)", async () => {
    const { port } = agent.svc;
    for (const [type, body] of [
      ["application/json", ""],
      ["application/json; charset=utf-8", "  "],
      ["application/json", '{"a":1}'],
      ["text/plain", "x"],
    ] as const) {
      const r = await send(port, "POST", "/api/resume", { "content-type": type }, body);
      expect(r.status, `${type} ${JSON.stringify(body)}`).toBe(409);
      expect(errorOf(r)).toBe("No paused agent to resume");
    }
  });

  it("a body over 1 MB is 413, whether announced by Content-Length or streamed in chunks", async () => {
    const { port } = agent.svc;
    const big = `{"a":"${"x".repeat(1_100_000)}"}`;
    const announced = await send(port, "POST", "/api/resume", { "content-type": "application/json" }, big);
    expect(announced.status).toBe(413);
    expect(errorOf(announced)).toBe("Request body is too large");
    const chunks = Array.from({ length: 12 }, () => "x".repeat(100_000));
    const streamed = await send(
      port,
      "POST",
      "/api/resume",
      { "content-type": "text/plain", "transfer-encoding": "chunked" },
      chunks,
    );
    expect(streamed.status).toBe(413);
    expect(errorOf(streamed)).toBe("Request body is too large");
  });
});

describe("agent service paths and methods", () => {
  it("HEAD answers a GET route's status and headers without a body", async () => {
    const { port } = agent.svc;
    const get = await send(port, "GET", "/api/status");
    const head = await send(port, "HEAD", "/api/status");
    expect(head.status).toBe(200);
    expect(head.text).toBe("");
    expect(head.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(head.headers["content-length"]).toBe(get.headers["content-length"]);
    expect((await send(port, "HEAD", "/nope")).status).toBe(404);
  });

  it("a known path under another method, a trailing slash or other case is a JSON 404 naming it", async () => {
    const { port } = agent.svc;
    for (const [method, path] of [
      ["POST", "/health"],
      ["GET", "/api/pause"],
      ["DELETE", "/api/status"],
      ["GET", "/health/"],
      ["GET", "/HEALTH"],
    ] as const) {
      const r = await send(port, method, path);
      expect(r.status, `${method} ${path}`).toBe(404);
      expect(errorOf(r)).toBe(`Not found: ${method} ${path}`);
    }
  });

  it("a path with a broken percent-escape is a JSON 400", async () => {
    const r = await send(agent.svc.port, "GET", "/%zz");
    expect(r.status).toBe(400);
    expect(typeof errorOf(r)).toBe("string");
  });

  it("dashboard files: decoded names, no way out of the folder, JSON 404s", async () => {
    const { port } = agent.svc;
    const js = await send(port, "GET", "/assets/app.js");
    expect(js.status).toBe(200);
    expect(js.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    expect(js.headers["cache-control"]).toBe("no-cache");
    const spaced = await send(port, "GET", "/assets/a%20b");
    expect(spaced.status).toBe(404);
    expect(errorOf(spaced)).toBe("Not found: /assets/a b");
    const outside = await send(port, "GET", "/assets/%2e%2e/%2e%2e/package.json");
    expect(outside.status).toBe(404);
    const chart = await send(port, "HEAD", "/vendor/lightweight-charts.js");
    expect(chart.headers["cache-control"]).toBe("public, max-age=3600");
  });

  it("/api/trades refuses a repeated limit", async () => {
    const r = await send(agent.svc.port, "GET", "/api/trades?limit=5&limit=6");
    expect(r.status).toBe(400);
    expect(errorOf(r)).toBe("limit must be an integer 1-1000");
  });
});

describe("AI gateway variant", () => {
  let gateway: ReturnType<typeof createServer>;
  let proxied: Started;
  const seen: string[] = [];

  beforeAll(async () => {
    gateway = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => {
        body += c.toString();
      });
      req.on("end", () => {
        seen.push(`${req.method} ${req.url} ${body}`);
        res.writeHead(201, { "content-type": "text/plain" });
        res.end(`gateway saw ${req.method} ${req.url} ${body}`);
      });
    });
    await new Promise<void>((r) => gateway.listen(0, "127.0.0.1", r));
    const port = (gateway.address() as { port: number }).port;
    proxied = await startTestAgent({ AI_GATEWAY_URL: `http://127.0.0.1:${port}` }, {}, { TICK_MS: "100000" });
  });
  afterAll(async () => {
    await proxied.svc.close();
    await new Promise<void>((r) => gateway.close(() => r()));
  });

  it("forwards a JSON request body to the gateway byte for byte", async () => {
    const body = '{ "prompt" : "hi" }';
    const r = await send(
      proxied.svc.port,
      "POST",
      "/chat",
      { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
      body,
    );
    expect(r.status).toBe(201);
    expect(r.text).toBe(`gateway saw POST /chat ${body}`);
  });

  it("forwards other methods on the agent's own paths, and serves the dashboard under /dashboard/", async () => {
    const put = await send(proxied.svc.port, "PUT", "/health");
    expect(put.status).toBe(201);
    const page = await send(proxied.svc.port, "GET", "/dashboard/");
    expect(page.status).toBe(200);
    expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
    const links = await send(proxied.svc.port, "GET", "/dashboard/assets/links.js");
    expect(links.text).toBe("window.HL_LINKS = [];\n");
  });
});

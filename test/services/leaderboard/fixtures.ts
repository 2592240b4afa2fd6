import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/**
 * An HTTP proxy in front of a sim world that can make the exchange fail for chosen users:
 * `failing` answers 500, `hanging` never answers. Everything else is forwarded untouched.
 */
export interface FaultyProxy {
  url: string;
  failing: Set<string>;
  hanging: Set<string>;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function userOf(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { user?: unknown };
    return typeof parsed.user === "string" ? parsed.user.toLowerCase() : undefined;
  } catch {
    return undefined;
  }
}

export async function startFaultyProxy(target: string): Promise<FaultyProxy> {
  const sockets = new Set<Socket>();
  const proxy: FaultyProxy = {
    url: "",
    failing: new Set(),
    hanging: new Set(),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    const user = userOf(body);
    if (user && proxy.hanging.has(user)) return; // never answers
    if (user && proxy.failing.has(user)) {
      res.writeHead(500, { "content-type": "text/plain" });
      res.end("upstream exploded");
      return;
    }
    const upstream = await fetch(target + (req.url ?? "/"), {
      method: req.method,
      headers: { "content-type": req.headers["content-type"] ?? "application/json" },
      body: req.method === "GET" || req.method === "HEAD" ? undefined : body,
    });
    res.writeHead(upstream.status, {
      "content-type": upstream.headers.get("content-type") ?? "application/json",
    });
    res.end(Buffer.from(await upstream.arrayBuffer()));
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return proxy;
}

export async function simAdmin(simUrl: string, path: "deposit" | "withdraw", user: string, amount: string) {
  const res = await fetch(`${simUrl}/sim/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ user, amount }),
  });
  if (!res.ok) throw new Error(`sim ${path} failed: ${res.status} ${await res.text()}`);
}

import { createServer, request, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/**
 * A load balancer for tests: each request goes to the next upstream in turn (streams included), and
 * an upstream that refuses or resets the connection before answering is skipped, as a balancer's
 * health check and retry would skip it.
 */
export interface RoundRobin {
  url: string;
  /** How many requests each upstream received. */
  readonly served: number[];
  close(): Promise<void>;
}

const GONE = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE"]);

export async function startRoundRobin(upstreams: readonly string[]): Promise<RoundRobin> {
  const targets = upstreams.map((u) => new URL(u));
  const served = targets.map(() => 0);
  const sockets = new Set<Socket>();
  let next = 0;

  const forward = (
    req: import("node:http").IncomingMessage,
    res: import("node:http").ServerResponse,
    body: Buffer,
    tries: number,
  ) => {
    const index = next++ % targets.length;
    const target = targets[index]!;
    const upstream = request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: target.host },
      },
      (up) => {
        served[index]!++;
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
        // An upstream that dies mid-response (a crashed replica) cuts the client off too, so it reconnects.
        up.on("close", () => {
          if (!up.complete) res.destroy();
        });
        res.on("close", () => up.destroy());
      },
    );
    upstream.on("error", (err: NodeJS.ErrnoException) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      // A replica that is gone refuses new connections, or resets the kept-alive one it had.
      if (GONE.has(err.code ?? "") && tries + 1 < targets.length) {
        forward(req, res, body, tries + 1);
        return;
      }
      res.writeHead(502, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: `upstream: ${err.message}` }));
    });
    res.on("close", () => upstream.destroy());
    upstream.end(body);
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => forward(req, res, Buffer.concat(chunks), 0));
  });
  // Clients (fetch keeps sockets 4 s) close idle connections before the balancer does, so a request
  // never meets a socket the balancer is closing, however slow a loaded machine runs timers.
  server.keepAliveTimeout = 60_000;
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    served,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

import { request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { connect } from "node:net";
import type { Duplex } from "node:stream";

/**
 * Hosting variant: every path the agent does not serve, and every WebSocket upgrade, is passed to the
 * AI gateway at `target`, the request body as sent. When the gateway is down the caller gets a JSON
 * 502, never a hang.
 */
export function gatewayProxy(target: string, timeoutMs = 30_000) {
  const url = new URL(target);
  const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));

  const notFound = (req: IncomingMessage, res: ServerResponse) => {
    const upstream = httpRequest(
      {
        host: url.hostname,
        port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: url.host },
        timeout: timeoutMs,
      },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    const fail = (err: Error) => {
      if (res.headersSent) return res.destroy();
      res.writeHead(502, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ error: `AI gateway unavailable: ${err.message}` }));
    };
    upstream.on("timeout", () => upstream.destroy(new Error("timed out")));
    upstream.on("error", fail);
    req.pipe(upstream);
  };

  const attachUpgrades = (server: Server) =>
    server.on("upgrade", (req, socket: Duplex, head: Buffer) => {
      const upstream = connect(port, url.hostname, () => {
        const lines = [`${req.method} ${req.url} HTTP/${req.httpVersion}`];
        for (let i = 0; i < req.rawHeaders.length; i += 2)
          lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
        upstream.write(`${lines.join("\r\n")}\r\n\r\n`);
        if (head.length) upstream.write(head);
        upstream.pipe(socket).pipe(upstream);
      });
      upstream.on("error", () => {
        socket.end(
          'HTTP/1.1 502 Bad Gateway\r\nContent-Type: application/json\r\n\r\n{"error":"AI gateway unavailable"}',
        );
      });
      socket.on("error", () => upstream.destroy());
    });

  return { notFound, attachUpgrades };
}

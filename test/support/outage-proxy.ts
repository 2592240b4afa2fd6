import { createConnection, createServer, type Server, type Socket } from "node:net";

/**
 * A TCP relay in front of a server (Postgres in the tests) that can be taken down and brought back
 * on the same port: `down()` cuts every open connection and refuses new ones, as a stopped server
 * does; `up()` accepts again. Cheaper and faster than stopping and restarting the server itself.
 */
export interface OutageProxy {
  /** host:port clients connect to. */
  readonly port: number;
  /** `url` with its host and port replaced by the relay's. */
  via(url: string): string;
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function startOutageProxy(targetUrl: string): Promise<OutageProxy> {
  const target = new URL(targetUrl);
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const s = createServer((client) => {
        const upstream = createConnection({ host: target.hostname, port: Number(target.port) });
        for (const sock of [client, upstream]) {
          sockets.add(sock);
          sock.on("close", () => sockets.delete(sock));
          sock.on("error", () => undefined);
        }
        client.pipe(upstream).pipe(client);
        client.on("close", () => upstream.destroy());
        upstream.on("close", () => client.destroy());
      });
      s.once("error", reject);
      s.listen(port, "127.0.0.1", () => {
        server = s;
        const addr = s.address();
        port = typeof addr === "object" && addr ? addr.port : port;
        resolve();
      });
    });

  const stop = () =>
    new Promise<void>((resolve) => {
      const s = server;
      server = undefined;
      for (const sock of sockets) sock.destroy();
      if (!s) return resolve();
      s.close(() => resolve());
    });

  await listen();
  return {
    get port() {
      return port;
    },
    via(url: string) {
      const u = new URL(url);
      u.hostname = "127.0.0.1";
      u.port = String(port);
      return u.toString();
    },
    down: stop,
    up: listen,
    close: stop,
  };
}

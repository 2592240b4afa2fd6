import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A stand-in for the public DeFi yields API: `GET /pools` answers whatever `respond` says. */
export interface YieldsFixture {
  url: string;
  requests: number;
  respond: (res: import("node:http").ServerResponse) => void;
  close(): Promise<void>;
}

export function pool(project: string, symbol: string, apy: unknown, tvlUsd = 1e9, chain = "Ethereum") {
  return {
    pool: `${project}-${symbol}-${tvlUsd}`,
    chain,
    project,
    symbol,
    tvlUsd,
    apy,
    apyBase: apy,
    apyReward: null,
  };
}

export const HEALTHY_POOLS = [
  pool("aave-v3", "USDC", 4.0),
  pool("aave-v3", "USDC", 9.9, 1e6), // a shallow second Aave market: the deeper one wins
  pool("compound-v3", "USDC", 4.5),
  pool("ethena-usde", "SUSDE", 10.0),
  pool("lido", "STETH", 3.0),
  pool("aave-v3", "USDC", 7.7, 5e9, "Arbitrum"), // another chain: ignored
];

export function json(res: import("node:http").ServerResponse, body: unknown, status = 200): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

export async function startYieldsFixture(): Promise<YieldsFixture> {
  const sockets = new Set<import("node:net").Socket>();
  const fixture: YieldsFixture = {
    url: "",
    requests: 0,
    respond: (res) => json(res, { status: "success", data: HEALTHY_POOLS }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer((req, res) => {
    if (req.url !== "/pools") return json(res, { error: "not found" }, 404);
    fixture.requests++;
    fixture.respond(res);
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  fixture.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fixture;
}

import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { RateBudget } from "../src/exchange/budget.ts";
import { ResilientTransport } from "../src/exchange/transport.ts";
import type { BenchReporter } from "./harness.ts";

/**
 * Requests per second a trader's client sends in normal times and during a 12 s storm of 429s
 * (every request refused), through the real transport and weight budget, against a loopback
 * stand-in for the exchange. The load is a trader's mix: four loops reading every 250 ms (price
 * poll, positions, fills, orders) and a scan bursting ten candle reads every 3 s.
 */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export default async function (r: BenchReporter): Promise<void> {
  let storm = false;
  let count = 0;
  const server = createServer((req, res) => {
    count += 1;
    req.resume();
    req.on("end", () => {
      if (storm) {
        res.writeHead(429, { "content-type": "text/plain" });
        res.end("Too Many Requests");
      } else setTimeout(() => res.end("[]"), 10);
    });
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const t = new ResilientTransport({ apiUrl: url, isTestnet: false, budget: new RateBudget() });
  let running = true;
  const read = (type: string) => t.request("info", { type }).catch(() => undefined);
  const loops = [
    ...Array.from({ length: 4 }, async () => {
      while (running) {
        await read("allMids");
        await sleep(250);
      }
    }),
    (async () => {
      while (running) {
        await Promise.all(Array.from({ length: 10 }, () => read("candleSnapshot")));
        await sleep(3000);
      }
    })(),
  ];
  try {
    await sleep(12_000);
    const normal = count / 12;
    storm = true;
    const before = count;
    await sleep(12_000);
    const inStorm = (count - before) / 12;
    r.figure({ name: "requests/s in normal times", value: normal, unit: "req/s" });
    r.figure({
      name: "requests/s during a 12 s 429 storm",
      value: inStorm,
      unit: "req/s",
      target: { op: "<=", value: Number(normal.toFixed(2)) },
      baseline: { name: "normal", value: normal },
    });
  } finally {
    running = false;
    storm = false;
    await Promise.all(loops);
    await t.close();
    server.closeAllConnections();
    server.close();
  }
}

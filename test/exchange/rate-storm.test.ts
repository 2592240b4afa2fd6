import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, expect, it } from "vitest";
import { RateBudget } from "../../src/exchange/budget.ts";
import { ResilientTransport } from "../../src/exchange/transport.ts";

/**
 * A storm of 429s must not raise the request rate: every caller of the budget backs off together
 * (jittered, doubling) and reads go out one at a time until one is answered. Before, each caller
 * retried on its own, so eight busy callers kept eight requests going through the storm.
 */

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

it("a 429 storm: far fewer requests than in normal times, one probe at a time after a back-off", async () => {
  let storm = false;
  let count = 0;
  server = createServer((req, res) => {
    count += 1;
    req.resume();
    req.on("end", () => {
      if (storm) {
        res.writeHead(429, { "content-type": "text/plain" });
        res.end("Too Many Requests");
      } else setTimeout(() => res.end("{}"), 5);
    });
  });
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const budget = new RateBudget({ weightPerMinute: 1e9, limitedMinMs: 100, limitedMaxMs: 400 });
  const t = new ResilientTransport({ apiUrl: url, isTestnet: true, budget });

  // Eight callers that keep reading (a scan, the price poll, reconciliation…).
  let running = true;
  const callers = Array.from({ length: 8 }, async () => {
    while (running) {
      await t.request("info", { type: "allMids" }).catch(() => undefined);
      await sleep(20);
    }
  });
  await sleep(600);
  const normal = count / 0.6;
  storm = true;
  const before = count;
  await sleep(1200);
  const inStorm = count - before;
  storm = false;
  running = false;
  await Promise.all(callers);
  await t.close();

  expect(inStorm / 1.2).toBeLessThanOrEqual(normal);
  // At most one request per half the shortest back-off (50 ms) through the storm.
  expect(inStorm).toBeLessThanOrEqual(24);
});

it("reads leave the reserved share to closes and stops; entries are held back while rate-limited, closes are not", async () => {
  const waits: number[] = [];
  const budget = new RateBudget({
    weightPerMinute: 100,
    reserveShare: 0.2,
    now: () => 0,
    sleep: async (ms) => {
      waits.push(ms);
      throw new Error("would wait");
    },
  });
  await budget.take(80);
  await expect(budget.take(1)).rejects.toThrow("would wait");
  expect(budget.available()).toBe(20); // there for a close

  let sent = 0;
  server = createServer((req, res) => {
    sent += 1;
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ status: "ok", response: { type: "default" } }));
    });
  });
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const limited = new RateBudget({ limitedMinMs: 60_000, random: () => 1 });
  limited.limited();
  const t = new ResilientTransport({ apiUrl: url, isTestnet: true, budget: limited });
  const order = (r: boolean) => ({ action: { type: "order", orders: [{ a: 1, b: false, r }] } });
  await expect(t.request("exchange", order(false))).rejects.toThrow(/held back/);
  expect(sent).toBe(0);
  await expect(t.request("exchange", order(true))).resolves.toMatchObject({ status: "ok" });
  await expect(
    t.request("exchange", { action: { type: "cancelByCloid", cancels: [] } }),
  ).resolves.toBeTruthy();
  expect(sent).toBe(2);
  await t.close();
});

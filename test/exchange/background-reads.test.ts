import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, expect, it } from "vitest";
import { inBackground } from "../../src/exchange/background.ts";
import { RateBudget } from "../../src/exchange/budget.ts";
import { ResilientTransport } from "../../src/exchange/transport.ts";

/**
 * Reads made inside `inBackground` (a leaderboard's periodic refresh) take the budget's background
 * queue, however deep in the call they are made; the same read outside it (a registration) does not.
 */

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
});

/** A transport to a loopback server answering `body`, and whether each read it weighed was background. */
async function recordingTransport(body: string): Promise<{ t: ResilientTransport; seen: boolean[] }> {
  server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.setHeader("content-type", "application/json");
      res.end(body);
    });
  });
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const budget = new RateBudget({ weightPerMinute: 1e9 });
  const seen: boolean[] = [];
  const take = budget.take.bind(budget);
  budget.take = (weight, opts = {}) => {
    seen.push(opts.background === true);
    return take(weight, opts);
  };
  return { t: new ResilientTransport({ apiUrl: url, isTestnet: true, budget }), seen };
}

it("a read inside inBackground queues as background; outside it, as a foreground read", async () => {
  const { t, seen } = await recordingTransport("{}");
  const read = async () => {
    await Promise.resolve();
    return t.request("info", { type: "clearinghouseState", user: "0x0" });
  };

  await inBackground(async () => {
    await read();
    await new Promise((r) => setTimeout(r, 1));
    await read();
  });
  await read();
  expect(seen).toEqual([true, true, false]);
  await t.close();
});

it("a candle read is a foreground read unless made inside inBackground (a strategy's tick reads candles too)", async () => {
  const { t, seen } = await recordingTransport("[]");
  const candles = () => t.request("info", { type: "candleSnapshot", req: { coin: "ETH", interval: "1m" } });
  await candles();
  await inBackground(candles);
  expect(seen).toEqual([false, true]);
  await t.close();
});

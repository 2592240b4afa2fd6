import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, expect, it } from "vitest";
import { RateBudget } from "../../src/exchange/budget.ts";
import { HlInfo } from "../../src/exchange/info.ts";
import { ResilientTransport } from "../../src/exchange/transport.ts";

/**
 * An account's approved builder fee changes only when the user approves, yet a start read it once
 * per agent, per service and per check (about 8 reads of weight 20 behind one IP): the clients of a
 * process share one answer, and a fresh read (after an approval) asks again.
 */

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
});

const USER = "0x00000000000000000000000000000000000000a1";
const BUILDER = "0x00000000000000000000000000000000000000b2";
const OTHER_BUILDER = "0x00000000000000000000000000000000000000c3";

it("maxBuilderFee: the second read by any client of the process costs no request; fresh asks again", async () => {
  const asked: string[] = [];
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => {
      body += c;
    });
    req.on("end", () => {
      const parsed = JSON.parse(body) as { type: string };
      asked.push(parsed.type);
      res.setHeader("content-type", "application/json");
      res.end(parsed.type === "maxBuilderFee" ? "10" : "{}");
    });
  });
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const budget = new RateBudget({ weightPerMinute: 1e9 });
  const transports = [0, 1].map(() => new ResilientTransport({ apiUrl: url, isTestnet: true, budget }));
  const [a, b] = transports.map((t) => new HlInfo(t, USER));

  expect(await a!.maxBuilderFee({ builder: BUILDER })).toBe(10);
  expect(await b!.maxBuilderFee({ builder: BUILDER, user: USER })).toBe(10);
  expect(await a!.maxBuilderFee({ builder: BUILDER })).toBe(10);
  expect(asked).toEqual(["maxBuilderFee"]);

  // Another builder is another answer; a fresh read (after an approval) asks the exchange again.
  await b!.maxBuilderFee({ builder: OTHER_BUILDER });
  await a!.maxBuilderFee({ builder: BUILDER, fresh: true });
  expect(asked).toHaveLength(3);
  await Promise.all(transports.map((t) => t.close()));
});

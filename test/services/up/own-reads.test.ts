import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiUrl } from "../../../src/config/env.ts";
import { BrokerBudget } from "../../../src/exchange/broker-budget.ts";
import { RateBudget } from "../../../src/exchange/budget.ts";
import { startWeightBroker, type WeightBroker } from "../../../src/exchange/weight-broker.ts";
import { anchorBtcswp, BTCSWP_BASELINE } from "../../../src/services/up/anchor.ts";
import { upConfig } from "../../../src/services/up/config.ts";
import { plan, urls } from "../../../src/services/up/plan.ts";
import { postInfo } from "../../../src/services/up/weighed-info.ts";
import { type SimWorld, startSimWorld } from "../../../src/sim/world.ts";

/**
 * The reads `hl up` makes itself (the BTCSWP mid it keeps the sim market anchored with) spend from
 * the weight broker it hosts, in the same ledger as its children's reports: the broker sees what the
 * whole IP spends, as the sim counts it.
 */
let dir: string;
let sim: SimWorld;
let broker: WeightBroker;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "hl-own-reads-"));
  [sim, broker] = await Promise.all([
    startSimWorld({ historyDays: 0, houseMakers: false, liveCoins: ["BTC"] }),
    startWeightBroker({ socketPath: join(dir, "broker.sock") }),
  ]);
});

afterAll(async () => {
  await broker?.close();
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function simLastMinute(): Promise<number> {
  const res = await fetch(`${sim.url}/sim/weight`);
  const body = (await res.json()) as { addresses: { address: string; lastMinute: number }[] };
  return body.addresses.reduce((sum, a) => sum + a.lastMinute, 0);
}

const spentOf = (b: RateBudget) => b.capacity - b.available();

describe("hl up's own reads", () => {
  it("spend from the broker's budget, in one ledger with a child's reports, matching what the sim counted", async () => {
    const own = broker.budget(sim.url)!;
    const before = await simLastMinute();
    expect(spentOf(own)).toBe(0);

    await anchorBtcswp(sim.url, BTCSWP_BASELINE, own);
    // A child's read, reported over the socket.
    const child = new BrokerBudget({
      socketPath: broker.socketPath,
      api: sim.url,
      fallback: new RateBudget({ weightPerMinute: 1e6 }),
      log: () => undefined,
    });
    await child.take(20);

    const deadline = Date.now() + 2000;
    while (spentOf(own) < 22 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    // allMids weighs 2; the child's 20 arrive in the same ledger.
    expect(spentOf(own)).toBe(22);
    expect((await simLastMinute()) - before).toBe(2);
  });

  it("wait for room like any read: with the minute spent, none is sent and nothing more is spent", async () => {
    const own = new RateBudget({ weightPerMinute: 100 });
    own.charge(100);
    const before = await simLastMinute();
    expect(await postInfo(sim.url, { type: "allMids" }, { budget: own, timeoutMs: 50 })).toBeUndefined();
    expect(spentOf(own)).toBe(100);
    expect(await simLastMinute()).toBe(before);
  });

  it("a 429 starts the budget's back-off (the broker's: every child backs off too)", async () => {
    const own = new RateBudget({ weightPerMinute: 100 });
    // The sim refuses a read over its per-IP limit with 429 and a null body: here a server that always does.
    const server = createServer((_req, res) => res.writeHead(429).end("null"));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const { port } = server.address() as AddressInfo;
      expect(
        await postInfo(`http://127.0.0.1:${port}`, { type: "allMids" }, { budget: own }),
      ).toBeUndefined();
      expect(own.limitedForMs()).toBeGreaterThan(0);
    } finally {
      server.close();
    }
  });

  it("spend from the budget its children report to: the key `hl up` uses is the API URL every child's client uses", () => {
    const cfg = upConfig({ dataDir: "/tmp/d", simPort: "18900" }, {});
    const children = plan(cfg, {}, { weightBroker: "/tmp/d/weight-broker.sock" });
    for (const c of children) expect(apiUrl("paper", c.env)).toBe(urls(cfg).sim);
  });
});

import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generatePrivateKey } from "viem/accounts";
import { afterAll, beforeAll, expect, it } from "vitest";
import { RateBudget } from "../../src/exchange/budget.ts";
import { HlClient } from "../../src/exchange/index.ts";
import { type SimWorld, startSimWorld } from "../../src/sim/world.ts";
import { buildWolfConfig } from "../../src/wolf/config.ts";
import { GuardOnly } from "../../src/wolf/guard-only.ts";
import { HlWolfPort } from "../../src/wolf/hl-port.ts";
import { openWolfRunner, until } from "../support/sim-wolf.ts";

let world: SimWorld;
const clients: HlClient[] = [];

beforeAll(async () => {
  world = await startSimWorld({ ipWeightLimit: false, seed: 37 });
});
afterAll(async () => {
  for (const c of clients) await c.close();
  await world.close();
});

it("the guard-only job stops at once (SIGTERM's stop) while its price read waits for request weight", async () => {
  const key = generatePrivateKey();
  const budget = new RateBudget({ weightPerMinute: 400 });
  const client = await HlClient.create({
    network: "paper",
    apiUrl: world.url,
    wsUrl: world.wsUrl,
    privateKey: key,
    env: { DATA_DIR: mkdtempSync(join(tmpdir(), "guard-stop-key-")) },
    retry: { attempts: 1 },
    budget,
  });
  clients.push(client);
  await client.clearinghouseState();
  const dataDir = mkdtempSync(join(tmpdir(), "guard-stop-"));
  const trader = await openWolfRunner(new HlWolfPort(client), dataDir, {}, { stream: false });
  await trader.enter({
    slot_id: 0,
    coin: "ETH",
    direction: "long",
    source: "test",
    score: 90,
    priority: 1,
    reason: "test",
  });
  await trader.settled();
  await trader.close();

  const lines: string[] = [];
  const guard = await GuardOnly.start({
    port: new HlWolfPort(client),
    dataDir,
    config: buildWolfConfig("default", {}, { leverage: 10 }),
    log: (line) => lines.push(line),
    pollMs: 20,
    feed: { pollMs: 60_000 },
  });
  // The IP's minute is spent (another process's restart loop): the guard's next price read waits for weight.
  budget.charge(budget.available());
  await new Promise((r) => setTimeout(r, 200));
  const t0 = Date.now();
  const stopped = guard.stop().then(() => Date.now() - t0);
  const tookMs = await Promise.race([
    stopped,
    new Promise<number>((r) => setTimeout(() => r(Infinity), 1_500)),
  ]);
  expect(tookMs).toBeLessThan(1_000);
  // Stopped, not crashed: the slot is still open with its stop resting.
  expect(guard.openSlots()).toBe(1);
  await until("the stop's listing", 1_000, () =>
    guard.runner.state.slots[0]?.backstop?.status === "resting" ? true : undefined,
  );
});

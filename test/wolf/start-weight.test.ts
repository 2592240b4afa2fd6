import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generatePrivateKey } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HlClient } from "../../src/exchange/index.ts";
import { forgetSharedReads } from "../../src/exchange/shared-reads.ts";
import { type SimWorld, startSimWorld } from "../../src/sim/world.ts";
import { buildWolfConfig } from "../../src/wolf/config.ts";
import { GuardOnly } from "../../src/wolf/guard-only.ts";
import { HlWolfPort } from "../../src/wolf/hl-port.ts";
import { openWolfRunner } from "../support/sim-wolf.ts";

/**
 * What one trading process's start spends of the IP's 1200 weight a minute: a restart loop (a
 * supervisor restarting a trader, the guard job started beside it) must leave the minute to protection.
 */
const START_WEIGHT_MAX = 100;

let world: SimWorld;
let dataDir: string;
const key = generatePrivateKey();
const clients: HlClient[] = [];

/** A client of the account, as a fresh process has it: no read shared with an earlier one. */
async function freshProcessClient(): Promise<HlClient> {
  forgetSharedReads();
  const client = await HlClient.create({
    network: "paper",
    apiUrl: world.url,
    wsUrl: world.wsUrl,
    privateKey: key,
    env: { DATA_DIR: mkdtempSync(join(tmpdir(), "start-weight-key-")) },
    retry: { attempts: 1 },
  });
  clients.push(client);
  // openClientSession's first read on paper (opens the account).
  await client.clearinghouseState();
  return client;
}

/** Weight the sim charged (every address) while `work` ran, by request kind. */
async function weightOf(
  work: () => Promise<void>,
): Promise<{ total: number; byKind: Record<string, number> }> {
  const snap = () => {
    const out: Record<string, number> = {};
    for (const a of world.weight().addresses)
      for (const [kind, v] of Object.entries(a.byKind)) out[kind] = (out[kind] ?? 0) + v.weight;
    return out;
  };
  const before = snap();
  await work();
  const after = snap();
  const byKind: Record<string, number> = {};
  let total = 0;
  for (const [kind, w] of Object.entries(after)) {
    const d = w - (before[kind] ?? 0);
    if (d > 0) {
      byKind[kind] = d;
      total += d;
    }
  }
  return { total, byKind };
}

/** The backstop status of each open slot. */
function openStops(slots: readonly { status: string; backstop?: { status: string } | undefined }[]) {
  return slots.flatMap((s) => (s.status === "active" ? [s.backstop?.status] : []));
}

beforeAll(async () => {
  world = await startSimWorld({ ipWeightLimit: false, seed: 31 });
  dataDir = mkdtempSync(join(tmpdir(), "start-weight-"));
  // The account WOLF restarts on: two open slots, one on the main dex and one on a HIP-3 dex, each with its stop.
  const runner = await openWolfRunner(
    new HlWolfPort(await freshProcessClient()),
    dataDir,
    {},
    { stream: false },
  );
  for (const [slot_id, coin] of [
    [0, "ETH"],
    [1, "xyz:XYZ100"],
  ] as const)
    await runner.enter({
      slot_id,
      coin,
      direction: "long",
      source: "test",
      score: 90,
      priority: 1,
      reason: "test",
    });
  await runner.settled();
  expect(openStops(runner.state.slots)).toEqual(["resting", "resting"]);
  await runner.close();
}, 20_000);
afterAll(async () => {
  for (const c of clients) await c.close();
  await world.close();
});

describe("a trading process's start weight", () => {
  it(`the guard-only job's start spends at most ${START_WEIGHT_MAX}, and adopts every slot's stop on every dex`, async () => {
    const client = await freshProcessClient();
    let guard: GuardOnly | undefined;
    const spent = await weightOf(async () => {
      guard = await GuardOnly.start({
        port: new HlWolfPort(client),
        dataDir,
        config: buildWolfConfig("default", {}, { leverage: 10 }),
        log: () => undefined,
        lock: false,
        readOnlyState: true,
        feed: { pollMs: 60_000 },
      });
      await guard.stop();
    });
    expect(openStops(guard?.runner.state.slots ?? [])).toEqual(["resting", "resting"]);
    expect(spent.total, JSON.stringify(spent.byKind)).toBeLessThanOrEqual(START_WEIGHT_MAX);
  });

  it(`WOLF's start (hl wolf run before its first tick) spends at most ${START_WEIGHT_MAX}`, async () => {
    const client = await freshProcessClient();
    const resting = (await client.frontendOpenOrdersAllDexes()).filter((o) => o.isTrigger);
    expect(resting).toHaveLength(2);
    forgetSharedReads();
    const spent = await weightOf(async () => {
      const runner = await openWolfRunner(new HlWolfPort(client), dataDir, {}, { stream: false });
      // Every slot keeps its one stop: the same orders, adopted by their cloids.
      expect(
        runner.state.slots.flatMap((s) => (s.status === "active" ? [String(s.backstop?.oid)] : [])).sort(),
      ).toEqual(resting.map((o) => String(o.oid)).sort());
      await runner.close();
    });
    expect(spent.total, JSON.stringify(spent.byKind)).toBeLessThanOrEqual(START_WEIGHT_MAX);
  });
});

import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generatePrivateKey } from "viem/accounts";
import { HlClient } from "../../src/exchange/index.ts";
import { forgetSharedReads } from "../../src/exchange/shared-reads.ts";
import type { SimWorld } from "../../src/sim/world.ts";
import { buildWolfConfig } from "../../src/wolf/config.ts";
import { GuardOnly } from "../../src/wolf/guard-only.ts";
import { HlWolfPort } from "../../src/wolf/hl-port.ts";
import { openWolfRunner } from "./sim-wolf.ts";

/** Weight a start spent, in all and by request kind (`info:meta`, …). */
export interface StartWeight {
  total: number;
  byKind: Record<string, number>;
}

/** The slots a measured start finds open, each with its stop resting on the sim. */
export const START_WEIGHT_SLOTS = ["ETH", "xyz:XYZ100"] as const;

/**
 * One WOLF account on `world` with a slot open on the main dex and one on a HIP-3 dex (each with its
 * exchange stop), and what a trading process's start spends on it as a new process would (no read
 * shared with an earlier one): `hl agent guard`'s (GuardOnly.start and its first price poll) and
 * `hl wolf run`'s before its first tick (WolfRunner.open), the session's first read included.
 */
export class StartWeightBench {
  private readonly key = generatePrivateKey();
  private readonly clients: HlClient[] = [];
  readonly dataDir = mkdtempSync(join(tmpdir(), "start-weight-"));

  constructor(private readonly world: SimWorld) {}

  /** Opens the slots (through a WOLF runner, closed after). */
  async openSlots(): Promise<void> {
    const runner = await openWolfRunner(
      new HlWolfPort(await this.client()),
      this.dataDir,
      {},
      { stream: false },
    );
    for (const [slot_id, coin] of START_WEIGHT_SLOTS.entries())
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
    await runner.close();
  }

  /** The guard-only job's start; `guarded` is each open slot's backstop status as it found it. */
  async guardStart(): Promise<StartWeight & { guarded: (string | undefined)[] }> {
    let guarded: (string | undefined)[] = [];
    const spent = await this.weightOf(async () => {
      const client = await this.client();
      const guard = await GuardOnly.start({
        port: new HlWolfPort(client),
        dataDir: this.dataDir,
        config: buildWolfConfig("default", {}, { leverage: 10 }),
        log: () => undefined,
        lock: false,
        readOnlyState: true,
        feed: { pollMs: 60_000 },
      });
      await guard.stop();
      guarded = openBackstops(guard.runner.state.slots).map((b) => b?.status);
    });
    return { ...spent, guarded };
  }

  /** WOLF's start; `adopted` is each open slot's backstop oid as it found it. */
  async wolfStart(): Promise<StartWeight & { adopted: string[] }> {
    let adopted: string[] = [];
    const spent = await this.weightOf(async () => {
      const runner = await openWolfRunner(
        new HlWolfPort(await this.client()),
        this.dataDir,
        {},
        { stream: false },
      );
      adopted = openBackstops(runner.state.slots).map((b) => String(b?.oid));
      await runner.close();
    });
    return { ...spent, adopted };
  }

  /** The stops resting on the sim for the account (read outside any measurement). */
  async restingStopOids(): Promise<string[]> {
    const client = await this.client();
    return (await client.frontendOpenOrdersAllDexes()).filter((o) => o.isTrigger).map((o) => String(o.oid));
  }

  async close(): Promise<void> {
    for (const c of this.clients) await c.close();
  }

  /** A client of the account as a new process has it, after openClientSession's first read on paper. */
  private async client(): Promise<HlClient> {
    forgetSharedReads();
    const client = await HlClient.create({
      network: "paper",
      apiUrl: this.world.url,
      wsUrl: this.world.wsUrl,
      privateKey: this.key,
      env: { DATA_DIR: mkdtempSync(join(tmpdir(), "start-weight-key-")) },
      retry: { attempts: 1 },
    });
    this.clients.push(client);
    await client.clearinghouseState();
    return client;
  }

  private weightOf(work: () => Promise<void>): Promise<StartWeight> {
    return weightOf(this.world, work);
  }
}

/** Weight the sim charged (every address) while `work` ran. */
export async function weightOf(world: SimWorld, work: () => Promise<void>): Promise<StartWeight> {
  const snap = () => {
    const out: Record<string, number> = {};
    for (const a of world.weight().addresses)
      for (const [kind, v] of Object.entries(a.byKind)) out[kind] = (out[kind] ?? 0) + v.weight;
    return out;
  };
  const before = snap();
  await work();
  const byKind: Record<string, number> = {};
  let total = 0;
  for (const [kind, w] of Object.entries(snap())) {
    const d = w - (before[kind] ?? 0);
    if (d > 0) {
      byKind[kind] = d;
      total += d;
    }
  }
  return { total, byKind };
}

function openBackstops<B>(slots: readonly { status: string; backstop?: B }[]): (B | undefined)[] {
  return slots.flatMap((s) => (s.status === "active" ? [s.backstop] : []));
}

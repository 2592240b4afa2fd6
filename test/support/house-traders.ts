import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generatePrivateKey } from "viem/accounts";
import type { RunResult } from "../../src/engine/engine.ts";
import { runStrategy } from "../../src/engine/runner.ts";
import type { WeightBudget } from "../../src/exchange/budget.ts";
import { HlClient } from "../../src/exchange/index.ts";
import { forgetSharedReads } from "../../src/exchange/shared-reads.ts";
import { parseTraderArgs, type TraderArgs } from "../../src/services/host/traders.ts";
import { upConfig } from "../../src/services/up/config.ts";
import { plan } from "../../src/services/up/plan.ts";
import type { SimWorld } from "../../src/sim/world.ts";

/** One house agent of the rig, and what it did. */
export interface RigAgent {
  name: string;
  args: TraderArgs;
  /** The source address its requests come from (the sim meters weight per address). */
  address: string;
  /** Wall time of each tick line it logged. */
  tickTimes: number[];
  lines: string[];
  result?: RunResult;
  /** Wall time its run ended (after its shutdown). */
  stoppedAt?: number;
}

/**
 * The four house agents of `hl up` (their `hl run` arguments taken from hl up's own plan) trading on
 * `world` in this process, as the traders process runs them, each with its own paper account. Each
 * agent's requests leave from its own loopback address (127.0.0.2, …), so the sim's weight meter
 * tells the agents apart; `budget(i)` is the weight budget agent i's client spends from (one object
 * for all of them is the traders process's share).
 */
export class HouseTradersRig {
  readonly agents: RigAgent[];
  private readonly dir = mkdtempSync(join(tmpdir(), "house-traders-"));
  private readonly clients: HlClient[] = [];
  private readonly stop = new AbortController();
  private runs: Promise<void>[] = [];

  constructor(
    private readonly world: SimWorld,
    private readonly budget: (i: number) => WeightBudget,
    private readonly tickSeconds = 5,
  ) {
    const houses = plan(upConfig({ dataDir: this.dir, houseTick: String(tickSeconds) }, {}), {}).filter(
      (c) => c.args[0] === "run",
    );
    this.agents = houses.map((c, i) => ({
      name: c.name,
      args: parseTraderArgs(c.args),
      address: `127.0.0.${i + 2}`,
      tickTimes: [],
      lines: [],
    }));
  }

  /** Starts every agent (a new process's shared reads: none cached). */
  async start(): Promise<void> {
    forgetSharedReads();
    const clients = await Promise.all(
      this.agents.map(async (a, i) => {
        const client = await HlClient.create({
          network: "paper",
          apiUrl: this.world.url,
          wsUrl: this.world.wsUrl,
          privateKey: generatePrivateKey(),
          env: { DATA_DIR: join(this.dir, a.name) },
          budget: this.budget(i),
          localAddress: a.address,
        });
        this.clients.push(client);
        // The sim opens (and funds) the account at its first read, as openClientSession does.
        await client.clearinghouseState();
        return client;
      }),
    );
    this.runs = clients.map((client, i) => this.run(this.agents[i]!, client));
  }

  private async run(a: RigAgent, client: HlClient): Promise<void> {
    a.result = await runStrategy({
      strategy: a.args.strategy,
      instrument: a.args.instrument,
      tickSeconds: a.args.tickSeconds,
      params: a.args.params,
      maxTicks: 0,
      mock: true,
      dryRun: false,
      resume: false,
      dataDir: join(this.dir, a.name, "cli"),
      recordsDir: join(this.dir, a.name),
      client,
      signal: this.stop.signal,
      log: (line) => {
        if (/^\[\d\d:\d\d:\d\d\] T\d+ /.test(line)) a.tickTimes.push(Date.now());
        else a.lines.push(line);
      },
    });
    a.stoppedAt = Date.now();
  }

  /** Weight each agent spent so far, by request kind (from the sim's meter of its address). */
  spentByAgent(): Record<string, number>[] {
    const report = this.world.weight().addresses;
    return this.agents.map((a) => {
      const byKind = report.find((r) => r.address === a.address)?.byKind ?? {};
      return Object.fromEntries(Object.entries(byKind).map(([k, v]) => [k, v.weight]));
    });
  }

  /** Asks every agent to stop (Ctrl-C) and waits for all; returns the ms from the ask to the last one's end. */
  async stopAll(): Promise<number> {
    const asked = Date.now();
    this.stop.abort();
    await Promise.all(this.runs);
    return Math.max(...this.agents.map((a) => (a.stoppedAt ?? asked) - asked));
  }

  async close(): Promise<void> {
    if (!this.stop.signal.aborted) await this.stopAll();
    for (const c of this.clients) await c.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** `after` less `before`, per kind, dropping kinds that did not grow. */
export function spentBetween(
  before: Record<string, number>,
  after: Record<string, number>,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(after)) {
    const d = v - (before[k] ?? 0);
    if (d > 0) out[k] = d;
  }
  return out;
}

/** Mean seconds between consecutive times (NaN with fewer than two). */
export function meanGapS(times: readonly number[]): number {
  if (times.length < 2) return Number.NaN;
  return (times[times.length - 1]! - times[0]!) / 1000 / (times.length - 1);
}

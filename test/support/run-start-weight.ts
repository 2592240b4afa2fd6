import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generatePrivateKey } from "viem/accounts";
import type { RunResult } from "../../src/engine/engine.ts";
import { CloidFactory, engineTag } from "../../src/engine/order-manager.ts";
import { runStrategy } from "../../src/engine/runner.ts";
import { HlClient } from "../../src/exchange/index.ts";
import { forgetSharedReads } from "../../src/exchange/shared-reads.ts";
import { isBackstopCloid } from "../../src/guard/backstop.ts";
import type { SimWorld } from "../../src/sim/world.ts";
import { type StartWeight, weightOf } from "./start-weight.ts";

const STRATEGY = "simple_mm";
const INSTRUMENT = "ETH-PERP";

/** What a restarted `hl run` found and left, read outside the measurement. */
export interface RunRestart extends StartWeight {
  result: RunResult;
  lines: string[];
  /** The run's exchange stops resting after it stopped (cloid and oid). */
  stops: { cloid: string; oid: number }[];
  /** The account's ETH position on the exchange after it stopped. */
  positionQty: string;
  /** Time of the fill made while the run was down. */
  missedFillMs: number;
}

/**
 * `hl run simple_mm --dsl` on ETH as a new process would run it (its own client session, the
 * default builder fee looked up, no read shared with an earlier process), restarted after a stop:
 * while it was down the account filled an order of its own (a fill to reconcile) and an order of
 * the run's rests (to adopt); its DSL position's exchange stop rests (to find by cloid).
 */
export class RunStartWeightBench {
  private readonly key = generatePrivateKey();
  readonly dataDir = mkdtempSync(join(tmpdir(), "run-start-weight-"));
  private account: HlClient | undefined;

  constructor(private readonly world: SimWorld) {}

  /** A first run guarding a long position (its stop placed), then the fill and the order made while down. */
  async prepare(): Promise<{ stops: { cloid: string; oid: number }[] }> {
    const client = await this.client();
    await this.buy(client, "0.1");
    await this.run(false);
    const stops = await this.runStops();
    return { stops };
  }

  /** The restart, measured: start, first tick and stop. */
  async restart(): Promise<RunRestart> {
    const client = await this.client();
    const missedFillMs = await this.buy(client, "0.05");
    // An order of the stopped run still resting (as after a kill): far below the book, never filled.
    const mid = Number((await client.allMidsMerged()).ETH);
    const cloid = new CloidFactory(engineTag(STRATEGY, INSTRUMENT), Date.now() - 60_000).next();
    const rest = await client.order({
      instrument: INSTRUMENT,
      side: "buy",
      size: "0.01",
      price: String(Math.round(mid * 0.8)),
      tif: "Gtc",
      cloid,
    });
    if (rest.status !== "resting") throw new Error(`setup order not resting: ${JSON.stringify(rest)}`);
    let out: { result: RunResult; lines: string[] } | undefined;
    const spent = await weightOf(this.world, async () => {
      forgetSharedReads();
      out = await this.run(true);
    });
    const state = await client.clearinghouseState();
    const positionQty = state.assetPositions.find((a) => a.position.coin === "ETH")?.position.szi ?? "0";
    return { ...spent, ...out!, stops: await this.runStops(), positionQty, missedFillMs };
  }

  /**
   * `hl run --dry-run` on the same account as a new process would run it, measured from its start to
   * its first tick's end and its stop: its paper account (state, leverage, fees) read from the network.
   */
  async dryRun(): Promise<StartWeight & { lines: string[] }> {
    await this.client();
    const lines: string[] = [];
    const spent = await weightOf(this.world, async () => {
      forgetSharedReads();
      await runStrategy({
        strategy: STRATEGY,
        instrument: INSTRUMENT,
        tickSeconds: 1,
        maxTicks: 1,
        mock: true,
        dryRun: true,
        resume: false,
        dataDir: join(this.dataDir, "dry-run"),
        apiUrl: this.world.url,
        env: { DATA_DIR: this.dataDir, HL_PRIVATE_KEY: this.key },
        log: (l) => lines.push(l),
      });
    });
    return { ...spent, lines };
  }

  async close(): Promise<void> {
    await this.account?.close();
  }

  private async run(resume: boolean): Promise<{ result: RunResult; lines: string[] }> {
    const lines: string[] = [];
    const result = await runStrategy({
      strategy: STRATEGY,
      instrument: INSTRUMENT,
      tickSeconds: 1,
      maxTicks: 1,
      mock: true,
      dryRun: false,
      resume,
      dataDir: join(this.dataDir, "cli"),
      apiUrl: this.world.url,
      env: { DATA_DIR: this.dataDir, HL_PRIVATE_KEY: this.key },
      dsl: { preset: "moderate", overrides: {} },
      log: (l) => lines.push(l),
    });
    return { result, lines };
  }

  private async buy(client: HlClient, size: string): Promise<number> {
    const r = await client.marketOrder({ instrument: INSTRUMENT, side: "buy", size });
    if (r.status !== "filled") throw new Error(`setup buy not filled: ${JSON.stringify(r)}`);
    const fills = await client.userFillsSince({ startTime: 0 });
    return Math.max(...fills.map((f) => f.time));
  }

  private async runStops(): Promise<{ cloid: string; oid: number }[]> {
    const client = await this.client();
    return (await client.frontendOpenOrdersAllDexes())
      .filter((o) => o.isTrigger && isBackstopCloid("run", o.cloid))
      .map((o) => ({ cloid: String(o.cloid), oid: o.oid }));
  }

  /** The account's own client (the setup's orders and checks), outside any measurement. */
  private async client(): Promise<HlClient> {
    this.account ??= await HlClient.create({
      network: "paper",
      apiUrl: this.world.url,
      wsUrl: this.world.wsUrl,
      privateKey: this.key,
      env: { DATA_DIR: mkdtempSync(join(tmpdir(), "run-start-weight-key-")) },
      retry: { attempts: 1 },
    });
    // The sim opens (and funds) the account at its first read.
    await this.account.clearinghouseState();
    return this.account;
  }
}

import { dirname, join } from "node:path";
import { z } from "zod";
import { agentAlertSource } from "../alerts/agent-label.ts";
import { alerterFromEnv } from "../alerts/webhook.ts";
import type { Network } from "../config/defaults.ts";
import { resolveNetwork } from "../config/env.ts";
import { UserError } from "../core/errors.ts";
import type { HlClient } from "../exchange/client.ts";
import { prepareDexMargin } from "../exchange/dex-margin.ts";
import { type ClientSession, openClientSession } from "../exchange/session.ts";
import { readsStoppedBy } from "../exchange/stoppable-reads.ts";
import type { BackstopPort } from "../guard/backstops.ts";
import { HlBackstopPort } from "../guard/hl-backstops.ts";
import { runStopConfig } from "../guard/position-stop.ts";
import { StrategyRecords } from "../review/strategy-records.ts";
import { acquireRunLock } from "../store/run-lock.ts";
import { findStrategy, STRATEGY_IDS } from "../strategies/catalog.ts";
import type { AnyStrategy } from "../strategies/sdk.ts";
import { type Advisor, Engine, type RunMode, type RunResult } from "./engine.ts";
import { HlGateway, HlMarketData, pendingOrderStore } from "./hl-adapter.ts";
import { createLlmAdvisor, resolveLlmConfig } from "./llm-advisor.ts";
import type { MarketDataPort, OrderGateway } from "./ports.ts";
import { migratePredecessorKv } from "./predecessor-db.ts";
import { type RiskLimits, riskLimitsSchema } from "./risk.ts";
import type { RunDslConfig } from "./run-config.ts";
import { StateStore } from "./state-store.ts";

type Env = Record<string, string | undefined>;

export interface RunStrategyOptions {
  strategy: string;
  instrument: string;
  tickSeconds: number;
  maxTicks: number;
  /** Paper network (the sim world). */
  mock: boolean;
  /** Orders filled by a local paper book against the real book; nothing is sent. */
  dryRun: boolean;
  network?: string;
  resume: boolean;
  /** Directory of state.db and trades.jsonl. */
  dataDir: string;
  /** `$DATA_DIR`, where the journal and memory events go (default: the parent of `dataDir`). */
  recordsDir?: string;
  params?: Record<string, number>;
  risk?: Record<string, number>;
  requoteBps?: number;
  /** A DSL trailing stop on the run's position (guard file under `dataDir`/dsl-stop). */
  dsl?: RunDslConfig;
  /**
   * Dead man's switch window in seconds (0 = off). Default: on live networks max(60, 6 ticks); off
   * on paper and in dry runs (nothing rests on a real book there).
   */
  deadManSeconds?: number;
  /** Protect-only: orders may only reduce the position (see EngineOptions.entriesDisabled). */
  entriesDisabled?: boolean;
  model?: string;
  apiUrl?: string;
  /** An already-open client (tests, services); the runner then neither opens nor closes a session. */
  client?: HlClient;
  env?: Env;
  signal?: AbortSignal;
  /** The wait between ticks (default: wall time); a sim world replaying history passes its own clock's advance. */
  sleep?: (ms: number) => Promise<void>;
  /** The engine's clock for its cooldowns and risk day (default: wall time). */
  now?: () => number;
  log?: (line: string) => void;
  /** Called once with the resolved setup, before the first tick (for the CLI's header). */
  onStart?: (info: {
    mode: RunMode;
    network: Network;
    instrument: string;
    params: Record<string, number>;
    notes: string[];
  }) => void;
}

/** The run was asked to stop while it was starting: it ends before its first tick. */
export class StoppedWhileStartingError extends Error {
  override name = "StoppedWhileStartingError";
  constructor(cause: unknown) {
    super("stopped while starting, before the first tick", { cause });
  }
}

/**
 * A read of the run's setup (connecting, the market's spec, a dry run's account) is given up when the
 * run is asked to stop (it may wait for request weight): the run ends before its first tick.
 */
async function whileStarting<T>(signal: AbortSignal | undefined, work: () => Promise<T>): Promise<T> {
  if (!signal) return work();
  if (signal.aborted) throw new StoppedWhileStartingError(signal.reason);
  try {
    return await readsStoppedBy(signal, work);
  } catch (err) {
    if (signal.aborted) throw new StoppedWhileStartingError(err);
    throw err;
  }
}

/** The dead man's switch window: as asked, else on for live trading only. */
export function deadManSeconds(
  o: Pick<RunStrategyOptions, "deadManSeconds" | "tickSeconds">,
  mode: RunMode,
): number {
  if (o.deadManSeconds !== undefined) {
    // Renewed once per tick when half the window is gone: the window must outlast two ticks.
    const least = 2 * o.tickSeconds + 5;
    if (o.deadManSeconds > 0 && o.deadManSeconds < least)
      throw new UserError(
        `--dead-man ${o.deadManSeconds} s is too short for ${o.tickSeconds} s ticks: at least ${least} s (2 ticks + 5 s), or 0 for off`,
      );
    return o.deadManSeconds;
  }
  return mode === "live" ? Math.max(60, 6 * o.tickSeconds) : 0;
}

export function resolveStrategy(name: string): AnyStrategy {
  const s = findStrategy(name);
  if (!s)
    throw new UserError(`unknown strategy "${name}" (available: ${[...STRATEGY_IDS].sort().join(", ")})`);
  return s;
}

/** Strategy params: its defaults overridden by `overrides`; an unknown or bad value is a UserError. */
export function resolveParams(
  s: AnyStrategy,
  overrides: Record<string, number> = {},
): Record<string, number> {
  const known = Object.keys(s.params.parse({}));
  const unknown = Object.keys(overrides).filter((k) => !known.includes(k));
  if (unknown.length > 0) {
    throw new UserError(`${s.id} has no param ${unknown.join(", ")} (params: ${known.join(", ")})`);
  }
  const r = s.params.safeParse(overrides);
  if (!r.success)
    throw new UserError(`bad params for ${s.id}: ${z.prettifyError(r.error).replace(/\n/g, "; ")}`);
  return r.data;
}

export function resolveRiskLimits(overrides: Record<string, number> = {}): RiskLimits {
  const known = Object.keys(riskLimitsSchema.shape);
  const unknown = Object.keys(overrides).filter((k) => !known.includes(k));
  if (unknown.length > 0)
    throw new UserError(`unknown risk limit ${unknown.join(", ")} (limits: ${known.join(", ")})`);
  const r = riskLimitsSchema.safeParse(overrides);
  if (!r.success) throw new UserError(`bad risk limits: ${z.prettifyError(r.error).replace(/\n/g, "; ")}`);
  return r.data;
}

/**
 * `hl run`: resolve strategy, params, limits, network and mode; connect (starting the sim world on
 * paper when nothing answers); pair market data with the exchange gateway (live, --mock) or with the
 * local paper book (--dry-run); run the engine until max ticks, the abort signal or a hard stop.
 */
export async function runStrategy(o: RunStrategyOptions): Promise<RunResult> {
  const env = o.env ?? process.env;
  const strategy = resolveStrategy(o.strategy);
  const params = resolveParams(strategy, o.params);
  const limits = resolveRiskLimits(o.risk);
  if (o.mock && o.network && o.network !== "paper") {
    throw new UserError(
      `--mock trades on the paper network; it cannot be combined with --network ${o.network}`,
    );
  }
  const network: Network = o.mock ? "paper" : resolveNetwork(o.network, env);
  const mode: RunMode = o.dryRun ? "dry-run" : o.mock ? "mock" : "live";
  let advisor: Advisor | undefined;
  if (strategy.adviceRequest) {
    advisor = createLlmAdvisor(resolveLlmConfig({ ...(o.model ? { model: o.model } : {}) }, env));
  }
  // One trading loop per state directory (a second would trade the wallet twice).
  const lock = acquireRunLock(o.dataDir, "trading", `hl run ${strategy.id}`);
  try {
    const kept = migratePredecessorKv(join(o.dataDir, "state.db"));
    if (kept) o.log?.(`migrated the predecessor's state.db to this format; the original is kept at ${kept}`);
    return await runWithLock(o, { env, strategy, params, limits, network, mode, advisor });
  } finally {
    lock.release();
  }
}

async function runWithLock(
  o: RunStrategyOptions,
  r: {
    env: Env;
    strategy: ReturnType<typeof resolveStrategy>;
    params: ReturnType<typeof resolveParams>;
    limits: ReturnType<typeof resolveRiskLimits>;
    network: Network;
    mode: RunMode;
    advisor: Advisor | undefined;
  },
): Promise<RunResult> {
  const { env, strategy, params, limits, network, mode, advisor } = r;
  const session: ClientSession = o.client
    ? { client: o.client, notes: [], close: async () => undefined }
    : await whileStarting(o.signal, () =>
        openClientSession({
          network,
          env,
          // A dry run looks the builder up as live does: its paper fills then pay the builder's fee too.
          tradingBuilder: true,
          ...(o.apiUrl ? { apiUrl: o.apiUrl } : {}),
        }),
      );
  // One connection to state.db for the run: the engine's state and the gateway's pending orders.
  const state = StateStore.inDir(o.dataDir);
  try {
    const { client } = session;
    // Funding is read for a dry run's paper book; a real account is charged it by the exchange.
    const live = new HlMarketData(client, strategy.needs ?? {}, { funding: o.dryRun });
    let market: MarketDataPort = live;
    let paper: OrderGateway | undefined;
    let paperBackstops: BackstopPort | undefined;
    if (o.dryRun) {
      // Only a dry run loads the exchange's order rules (shared with the sim world's venue).
      const { PaperGateway } = await import("./paper-gateway.ts");
      const { dryRunPaperOptions } = await import("./dry-run-account.ts");
      const book = new PaperGateway(
        await whileStarting(o.signal, async () =>
          dryRunPaperOptions(
            client,
            await client.market(o.instrument),
            o.log ?? ((line) => process.stderr.write(`${line}\n`)),
          ),
        ),
      );
      market = book.watch(live);
      paper = book;
      if (o.dsl) {
        const { PaperBackstopPort } = await import("./paper-backstops.ts");
        paperBackstops = new PaperBackstopPort(book);
      }
    }
    const user = client.address;
    if (!paper && !user) throw new UserError(`no wallet configured for ${network}: set HL_PRIVATE_KEY`);
    const spec = await whileStarting(o.signal, () => market.spec(o.instrument));
    // One alerter for the engine and the gateway (dead man's switch): each alert names this agent.
    const alerter = alerterFromEnv(
      agentAlertSource(`hl run ${strategy.id} ${spec.instrument} (${network})`, dirname(o.dataDir), env),
      env,
    );
    // Each order's cloid and expiry go to state.db before it is sent: a restarted run resolves them first.
    const hlGateway =
      paper || !user
        ? undefined
        : new HlGateway(
            client,
            live,
            { source: client.stream, user },
            {
              pending: pendingOrderStore(state),
              alerter,
              openOrdersStream: { source: client.stream, user },
            },
          );
    // A HIP-3 market needs USDC the account can margin it with there: as a live user would, the run
    // turns dex abstraction on for an account that never set its mode and holds nothing on the dex.
    if (hlGateway) {
      const dex = (await whileStarting(o.signal, () => client.market(o.instrument))).dex;
      await whileStarting(o.signal, () =>
        prepareDexMargin(client, dex, o.log ?? ((line) => process.stderr.write(`${line}\n`))),
      );
    }
    const gateway: OrderGateway = (paper ?? hlGateway)!;
    o.onStart?.({ mode, network, instrument: spec.instrument, params, notes: session.notes });
    const engine = new Engine({
      strategy,
      params,
      instrument: spec.instrument,
      market,
      gateway,
      dataDir: o.dataDir,
      persistence: { store: state },
      ...(o.dsl
        ? {
            dslStop: {
              config: runStopConfig(o.dsl.preset, o.dsl.overrides),
              guardDir: join(o.dataDir, "dsl-stop"),
            },
            // Live and on the sim, the guarded position's stop also rests on the exchange; in a
            // dry run it rests in the paper book, which fires it as the exchange would.
            // Its first listing of stops takes its market's dex from the gateway's open-orders stream.
            ...(hlGateway
              ? { backstops: new HlBackstopPort(client, (dex) => hlGateway.streamedOrders(dex)) }
              : {}),
            ...(paperBackstops ? { backstops: paperBackstops } : {}),
          }
        : {}),
      tickMs: Math.round(o.tickSeconds * 1000),
      maxTicks: o.maxTicks,
      resume: o.resume,
      limits,
      requoteBps: o.requoteBps ?? 2,
      deadManMs: Math.round(1000 * deadManSeconds(o, mode)),
      ...(o.entriesDisabled ? { entriesDisabled: true } : {}),
      alerter,
      // A closed trade is notable past a tenth of the drawdown budget.
      records: new StrategyRecords({
        dataDir: o.recordsDir ?? dirname(o.dataDir),
        strategy: strategy.id,
        instrument: spec.instrument,
        notableMarginUsd: limits.max_drawdown_usd,
        log: o.log ?? ((line) => process.stderr.write(`${line}\n`)),
      }),
      mode,
      network,
      ...(advisor ? { advisor } : {}),
      ...(o.log ? { log: o.log } : {}),
      ...(o.sleep ? { sleep: o.sleep } : {}),
      ...(o.now ? { now: o.now } : {}),
    });
    const stop = () => engine.stop();
    if (o.signal?.aborted) stop();
    o.signal?.addEventListener("abort", stop, { once: true });
    try {
      return await engine.run();
    } finally {
      o.signal?.removeEventListener("abort", stop);
      hlGateway?.close();
    }
  } finally {
    state.close(); // the engine closed it at its end; this closes it when the run never started
    await session.close();
  }
}

import { dirname, join } from "node:path";
import type { Command } from "commander";
import { agentAlertSource } from "../alerts/agent-label.ts";
import { alerterFromEnv } from "../alerts/webhook.ts";
import { dataDir, resolveNetwork } from "../config/env.ts";
import { UserError } from "../core/errors.ts";
import { keepRunningOnStrayErrors } from "../core/process-guard.ts";
import { readRunConfig, withDslPreset } from "../engine/run-config.ts";
import { runStrategy, StoppedWhileStartingError } from "../engine/runner.ts";
import { requireMainnetConsent, YES_HELP } from "./mainnet.ts";
import { modeLabel } from "./mode-label.ts";

interface RunOptions {
  instrument?: string;
  config?: string;
  tick?: string;
  maxTicks: string;
  mock?: boolean;
  dryRun?: boolean;
  network?: string;
  mainnet?: boolean;
  yes?: boolean;
  resume: boolean;
  dataDir?: string;
  param: string[];
  risk: string[];
  requoteBps: string;
  deadMan?: string;
  model?: string;
  dslPreset?: string;
}

const collect = (v: string, acc: string[]) => [...acc, v];

/** "k=v" pairs with numeric values. */
export function parsePairs(pairs: readonly string[], what: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const p of pairs) {
    const m = /^([a-z0-9_]+)=(.+)$/i.exec(p);
    const n = m ? Number(m[2]) : Number.NaN;
    if (!m || !Number.isFinite(n)) throw new UserError(`${what} must look like name=number, got "${p}"`);
    out[m[1]!] = n;
  }
  return out;
}

function positiveNumber(raw: string, flag: string, allowZero: boolean): number {
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0 || (!allowZero && n === 0))
    throw new UserError(`${flag} must be a ${allowZero ? "non-negative" : "positive"} number, got "${raw}"`);
  return n;
}

/** 0 (off) or at least 5 s: the exchange refuses a scheduled cancel sooner than that. */
function deadManOption(raw: string): number {
  const n = positiveNumber(raw, "--dead-man", true);
  if (n > 0 && n < 5) throw new UserError(`--dead-man must be 0 (off) or at least 5 seconds, got "${raw}"`);
  return n;
}

/** `hl run STRATEGY -i INSTRUMENT`: the single-strategy engine. */
export function register(program: Command): void {
  program
    .command("run")
    .description("Run one strategy on one instrument (paper with --mock, no orders sent with --dry-run)")
    .argument("[strategy]", "strategy id (see `hl strategies`); optional with --config")
    .option("-i, --instrument <name>", "instrument, e.g. ETH-PERP, VXX-USDYP (default ETH-PERP)")
    .option(
      "-c, --config <file>",
      "run config, YAML or JSON: strategy, instrument, tick, params, risk, dsl (flags win)",
    )
    .option("-t, --tick <seconds>", "seconds between ticks (default: TICK_INTERVAL, else 10)")
    .option("--max-ticks <n>", "stop after this many ticks of this run (0 = run until stopped)", "0")
    .option("--mock", "trade on the paper network (the sim world, started if not running)")
    .option("--dry-run", "real market data, orders filled by a local paper book and never sent")
    .option("--network <network>", "mainnet | testnet | paper (default: HL_NETWORK, else paper)")
    .option("--mainnet", "same as --network mainnet")
    .option("-y, --yes", YES_HELP)
    .option("--resume", "continue from the saved state of the same strategy and instrument (the default)")
    .option("--fresh", "ignore saved state (also clears a risk hard stop)")
    .option(
      "--data-dir <dir>",
      "data directory root; state.db and trades.jsonl go to <dir>/cli (default: DATA_DIR, else ./data)",
    )
    .option("-p, --param <name=value>", "strategy param override (repeatable)", collect, [])
    .option("--risk <name=value>", "risk limit override (repeatable)", collect, [])
    .option(
      "--requote-bps <bps>",
      "leave a resting quote alone while within this distance of the wanted price",
      "2",
    )
    .option(
      "--dead-man <seconds>",
      "exchange cancels all the account's orders this long after the engine stops renewing (0 = off; default: live max(60, 6 ticks), paper off)",
    )
    .option(
      "--dsl-preset <name>",
      "guard the run's position with a DSL trailing stop (moderate | tight); closes and stops the run on a breach",
    )
    .option("--model <name>", "LLM model for llm_agent (default: LLM_MODEL, else the provider's default)")
    .action(async (strategyArg: string | undefined, opts: RunOptions & { fresh?: boolean }) => {
      const file = opts.config ? readRunConfig(opts.config) : undefined;
      const strategy = strategyArg ?? file?.strategy;
      if (!strategy) throw new UserError("name a strategy, or give a run config with --config FILE");
      const instrumentDefaulted = opts.instrument === undefined && file?.instrument === undefined;
      const instrument = opts.instrument ?? file?.instrument ?? "ETH-PERP";
      if (opts.mainnet && opts.network && opts.network !== "mainnet") {
        throw new UserError(`--mainnet contradicts --network ${opts.network}`);
      }
      const tickRaw =
        opts.tick ??
        (file?.tick !== undefined ? String(file.tick) : undefined) ??
        process.env.TICK_INTERVAL ??
        "10";
      const tickSeconds = positiveNumber(tickRaw, "--tick", true);
      const maxTicks = positiveNumber(opts.maxTicks, "--max-ticks", true);
      if (!Number.isInteger(maxTicks))
        throw new UserError(`--max-ticks must be a whole number, got "${opts.maxTicks}"`);
      const dir = join(opts.dataDir ?? dataDir(), "cli");
      const network = opts.mainnet ? "mainnet" : opts.network;
      // A dry run never sends an order, so it needs no consent.
      if (!opts.mock && !opts.dryRun) requireMainnetConsent(resolveNetwork(network), opts.yes, "hl run");
      const ctl = new AbortController();
      const onSignal = () => ctl.abort();
      process.once("SIGINT", onSignal);
      process.once("SIGTERM", onSignal);
      const out = (line: string) => process.stdout.write(`${line}\n`);
      const strays = alerterFromEnv(
        agentAlertSource(
          `hl run ${strategy} ${instrument} (${network ?? resolveNetwork(undefined)})`,
          dirname(dir),
          process.env,
        ),
      );
      const release = keepRunningOnStrayErrors({
        log: (line) => process.stderr.write(`${line}\n`),
        alert: (text) => strays.send("crash", text),
      });
      try {
        const started = Date.now();
        const r = await runStrategy({
          strategy,
          instrument,
          tickSeconds,
          maxTicks,
          mock: opts.mock === true,
          dryRun: opts.dryRun === true,
          ...(network ? { network } : {}),
          resume: opts.fresh !== true,
          dataDir: dir,
          recordsDir: opts.dataDir ?? dataDir(),
          params: { ...file?.params, ...parsePairs(opts.param, "--param") },
          risk: { ...file?.risk, ...parsePairs(opts.risk, "--risk") },
          requoteBps: positiveNumber(opts.requoteBps, "--requote-bps", true),
          ...(opts.deadMan !== undefined ? { deadManSeconds: deadManOption(opts.deadMan) } : {}),
          ...(opts.model ? { model: opts.model } : {}),
          ...withDslPreset(file?.dsl, opts.dslPreset),
          signal: ctl.signal,
          // Tick lines are this command's output: `hl run … | head` ends at the next one.
          log: out,
          onStart: (info) => {
            for (const note of info.notes) out(note);
            out(`Mode: ${modeLabel(info.mode, info.network)}`);
            out(
              `Strategy: ${strategy} ${Object.entries(info.params)
                .map(([k, v]) => `${k}=${v}`)
                .join(" ")}`,
            );
            out(
              `Instrument: ${info.instrument}${instrumentDefaulted ? " (the default; choose another with -i)" : ""}`,
            );
            out(`Tick interval: ${tickSeconds}s${maxTicks > 0 ? ` | Max ticks: ${maxTicks}` : ""}`);
            out(`State: ${join(dir, "state.db")}`);
          },
        }).catch((err: unknown) => {
          if (!(err instanceof StoppedWhileStartingError)) throw err;
          return undefined;
        });
        if (!r) {
          out("Stopped while starting, before the first tick.");
          return;
        }
        const p = r.position;
        out("=== Summary ===");
        out(`Ticks: ${r.ticks} this run, ${r.tickCount} in total (stopped: ${r.stopReason})`);
        out(
          `Orders: ${r.stats.total_placed} placed, ${r.stats.total_filled} fills, ${r.stats.total_cancelled} cancelled`,
        );
        out(
          `Position: ${p.net_qty} @ ${p.avg_entry_price} | realized ${p.realized_pnl} fees ${p.fees_paid} unrealized ${p.unrealized_pnl}`,
        );
        out(`Runtime: ${((Date.now() - started) / 1000).toFixed(1)}s`);
        if (r.stopReason === "dsl_stop") out(`DSL stop: ${r.dslReason ?? "breached"}`);
        if (r.stopReason === "delisted")
          throw new UserError(`${instrument} was delisted by the exchange; the run cannot continue`);
        if (r.stopReason === "halted")
          throw new UserError(`risk hard stop: ${r.haltReason ?? "limit breached"}`);
      } finally {
        release();
        await strays.flush();
        process.removeListener("SIGINT", onSignal);
        process.removeListener("SIGTERM", onSignal);
      }
    });
}

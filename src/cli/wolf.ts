import { join } from "node:path";
import type { Command } from "commander";
import { agentAlertSource } from "../alerts/agent-label.ts";
import { alerterFromEnv } from "../alerts/webhook.ts";
import { DEFAULT_PARTICIPATION } from "../backtest/candle-fill-model.ts";
import type { Network } from "../config/defaults.ts";
import { dataDir as envDataDir, resolveNetwork } from "../config/env.ts";
import { UserError } from "../core/errors.ts";
import { usd } from "../core/money.ts";
import { keepRunningOnStrayErrors } from "../core/process-guard.ts";
import { type ClientSession, openClientSession } from "../exchange/index.ts";
import { DSL_PRESET_NAMES, dslConfigFromPreset } from "../guard/config.ts";
import { evaluateDsl, newDslState } from "../guard/dsl.ts";
import { HlBackstopPort } from "../guard/hl-backstops.ts";
import { listGuards } from "../guard/store.ts";
import { configuredVault, configuredVaultContext, vaultSummary } from "../review/vault-notes.ts";
import { CandleCache } from "../signals/candle-cache.ts";
import { formatMovers, formatMoversPreset, formatScan, formatScannerPreset } from "../signals/format.ts";
import { moversHistoryPath, readHistory, scannerHistoryPath } from "../signals/history.ts";
import type { MoversScan } from "../signals/movers.ts";
import { MOVERS_PRESETS, moversConfig } from "../signals/movers-config.ts";
import type { ScanResult } from "../signals/scanner.ts";
import { SCANNER_PRESETS, scannerConfig } from "../signals/scanner-config.ts";
import { readJson } from "../store/atomic.ts";
import { buildWolfConfig, tickFromEnv, WOLF_PRESET_NAMES, type WolfConfigInput } from "../wolf/config.ts";
import { runGuardLoop } from "../wolf/dsl-guard-loop.ts";
import { givenEntry, StandaloneGuard } from "../wolf/dsl-runner.ts";
import { HlWolfPort } from "../wolf/hl-port.ts";
import { loadAnyWolfState, migratePredecessorWolfState } from "../wolf/predecessor.ts";
import { WolfRunner } from "../wolf/runner.ts";
import { dslDir } from "../wolf/state.ts";
import { NO_STATE_TEXT, wolfStatusText } from "../wolf/status.ts";
import { requireMainnetConsent, YES_HELP } from "./mainnet.ts";

interface NetOpts {
  mock?: boolean;
  yes?: boolean;
  network?: string;
  dataDir?: string;
}

const num = (name: string) => (v: string) => {
  const x = Number(v);
  if (!Number.isFinite(x)) throw new UserError(`${name} must be a number, got "${v}"`);
  return x;
};

function dataDirOf(o: NetOpts): string {
  return o.dataDir ? envDataDir({ DATA_DIR: o.dataDir }) : envDataDir();
}

function networkOf(o: NetOpts): Network {
  if (o.mock) {
    if (o.network && o.network !== "paper")
      throw new UserError("--mock means the paper network; drop --network");
    return "paper";
  }
  return resolveNetwork(o.network);
}

async function session(o: NetOpts): Promise<ClientSession> {
  const dir = dataDirOf(o);
  const s = await openClientSession({
    network: networkOf(o),
    env: { ...process.env, DATA_DIR: dir },
    tradingBuilder: true,
  });
  for (const note of s.notes) process.stderr.write(`${note}\n`);
  return s;
}

function stopSignal(): AbortController {
  const ac = new AbortController();
  for (const sig of ["SIGINT", "SIGTERM"] as const) process.once(sig, () => ac.abort());
  return ac;
}

const withNet = (c: Command) =>
  c
    .option("--mock", "trade on the paper network (the local sim world)")
    .option("--network <network>", "mainnet | testnet | paper (default: HL_NETWORK, else paper)")
    .option("--data-dir <dir>", "data directory (default: DATA_DIR, else ./data)");

/** A JSON file of WOLF config fields (or `{"wolf": {...}}`); preset < file < flags. */
function readConfigFile(path: string): WolfConfigInput {
  const r = readJson<unknown>(path);
  if (r.kind === "missing") throw new UserError(`config file ${path} not found`);
  if (r.kind === "corrupt") throw new UserError(`config file ${path} is not valid JSON: ${r.error}`);
  const v = r.value;
  if (typeof v !== "object" || v === null || Array.isArray(v))
    throw new UserError(`config file ${path} must hold a JSON object`);
  const inner = (v as Record<string, unknown>).wolf;
  return (typeof inner === "object" && inner !== null ? inner : v) as WolfConfigInput;
}

interface WolfRunOpts extends NetOpts {
  preset: string;
  config?: string;
  maxTicks: number;
  tick?: number;
  budget?: number;
  slots?: number;
  leverage?: number;
  fresh?: boolean;
  json?: boolean;
  stream: boolean;
}

async function runWolf(o: WolfRunOpts, once: boolean): Promise<void> {
  const tickSeconds = o.tick ?? tickFromEnv();
  const config = buildWolfConfig(
    o.preset,
    { budget: o.budget, slots: o.slots, leverage: o.leverage, tickSeconds },
    o.config ? readConfigFile(o.config) : {},
  );
  const network = networkOf(o);
  requireMainnetConsent(network, o.yes, once ? "hl wolf once" : "hl wolf run");
  const dir = dataDirOf(o);
  const alerter = alerterFromEnv(agentAlertSource(`WOLF (${network})`, dir, process.env));
  const release = keepRunningOnStrayErrors({
    log: (line) => process.stderr.write(`${line}\n`),
    alert: (text) => alerter.send("crash", text),
  });
  const s = await session(o).catch((err: unknown) => {
    release();
    throw err;
  });
  try {
    if (!s.client.address) throw new UserError(`no wallet configured for ${network}: set HL_PRIVATE_KEY`);
    process.stderr.write(
      `Mode: ${network === "paper" ? "PAPER (sim world)" : `LIVE (${network})`}\nBudget: $${config.total_budget.toLocaleString("en-US")}  |  Slots: ${config.max_slots}  |  Leverage: ${config.leverage.toFixed(1)}x  |  Margin/slot: $${Math.round(config.margin_per_slot).toLocaleString("en-US")}  |  Tick: ${config.tick_interval_s}s\n`,
    );
    const kept = migratePredecessorWolfState(dir, Date.now());
    if (kept)
      process.stderr.write(
        `Migrated the predecessor's WOLF state to this format; the original is kept at ${kept}\n`,
      );
    const vault = configuredVaultContext();
    if (vault) process.stderr.write(`${vaultSummary(vault)}\n`);
    const runner = await WolfRunner.open({
      alerter,
      port: new HlWolfPort(s.client),
      dataDir: dir,
      preset: o.preset,
      config,
      fresh: o.fresh ?? false,
      stream: o.stream,
      // HOWL + judge every review_interval_ticks and daily after 04:00 UTC; bounded auto-tuning of the
      // live config (takes effect next tick, persisted in state.json's `config`).
      // Imported on the first review, not at start: a restarted run is guarded before this loads.
      onReview: async (ctx) => {
        const run = (await import("../review/review-hook.ts")).runReview({
          dataDir: ctx.dataDir,
          reason: ctx.reason,
          nowMs: ctx.nowMs,
          vault: configuredVault(),
          autoTune: { getConfig: () => ctx.config, apply: (next) => Object.assign(ctx.config, next) },
        });
        process.stderr.write(
          `review (${ctx.reason}) at tick ${ctx.tick}${run.tune?.changes.length ? `: ${run.tune.changes.length} setting(s) retuned` : ""}\n`,
        );
      },
    });
    const ac = stopSignal();
    await runner.run({
      maxTicks: once ? 1 : o.maxTicks,
      tickMs: config.tick_interval_s * 1000,
      signal: ac.signal,
      onTick: (st) => process.stdout.write(o.json ? `${JSON.stringify(st)}\n` : `\n${wolfStatusText(st)}`),
    });
    await runner.close();
    const st = runner.state;
    process.stderr.write(
      `\nWOLF session: ${st.tick_count} ticks, ${st.total_trades} trades, realised PnL today ${usd(st.daily_pnl)}, in all ${usd(st.total_pnl)}\n`,
    );
  } finally {
    await s.close();
    release();
  }
}

interface WolfBacktestFlags {
  from?: string;
  to?: string;
  preset: string;
  config?: string;
  tick?: number;
  budget?: number;
  slots?: number;
  leverage?: number;
  coins?: string;
  interval: string;
  feeTier: number;
  latencyMs: number;
  slippageBps: number;
  participationPct: number;
  network?: string;
  dataDir?: string;
  report?: string;
  json?: boolean;
  verbose?: boolean;
}

function registerWolf(program: Command): void {
  const wolf = program.command("wolf").description("WOLF: multi-slot orchestrator with DSL trailing stops");
  const runOpts = (c: Command) =>
    withNet(c)
      .option(
        "-p, --preset <name>",
        `preset: ${WOLF_PRESET_NAMES.join(" | ")}`,
        process.env.WOLF_PRESET || "default",
      )
      .option("-c, --config <file>", "JSON file of config fields (overrides the preset)")
      .option(
        "-t, --tick <seconds>",
        "tick interval (default: WOLF_TICK, else TICK_INTERVAL, else 60)",
        num("--tick"),
      )
      .option("--budget <usd>", "total budget (margin per slot = budget / slots)", num("--budget"))
      .option("--slots <n>", "number of slots", num("--slots"))
      .option("--leverage <x>", "leverage", num("--leverage"))
      .option("--fresh", "start from an empty state (refused while slots are open)")
      .option("--json", "print the state JSON each tick instead of the status text")
      .option("--no-stream", "run the DSL on ticks only (no WebSocket price stream)")
      .option("-y, --yes", YES_HELP);
  runOpts(wolf.command("run").description("Run the orchestrator"))
    .option("--max-ticks <n>", "stop after this many ticks of this run (0 = forever)", num("--max-ticks"), 0)
    .action((o: WolfRunOpts) => runWolf(o, false));
  runOpts(wolf.command("once").description("Run one tick and exit")).action((o: WolfRunOpts) =>
    runWolf({ ...o, maxTicks: 1 }, true),
  );
  wolf
    .command("backtest")
    .description("Run WOLF (scanner, movers, slots, DSL, hard stops) over recorded history and report")
    .option("--from <time>", "start: 2026-01-31, an ISO time or epoch ms (UTC)")
    .option("--to <time>", "end (exclusive), same forms")
    .option(
      "-p, --preset <name>",
      `preset: ${WOLF_PRESET_NAMES.join(" | ")}`,
      process.env.WOLF_PRESET || "default",
    )
    .option("-c, --config <file>", "JSON file of config fields (overrides the preset)")
    .option("-t, --tick <seconds>", "tick interval of market time (default: the config's)", num("--tick"))
    .option("--budget <usd>", "total budget, the starting equity", num("--budget"))
    .option("--slots <n>", "number of slots", num("--slots"))
    .option("--leverage <x>", "leverage", num("--leverage"))
    .option("--coins <list>", "comma-separated coins to replay (default: every coin held)")
    .option("--interval <1m|5m|1h>", "candle interval to replay", "1m")
    .option("--fee-tier <n>", "Hyperliquid perp fee tier 0–6", num("--fee-tier"), 0)
    .option("--latency-ms <ms>", "order latency, market time", num("--latency-ms"), 0)
    .option(
      "--slippage-bps <bps>",
      "an order meets the price at its arrival (the open of the next candle) moved this much against it; beyond its limit it does not fill",
      num("--slippage-bps"),
      1,
    )
    .option(
      "--participation-pct <pct>",
      "our fills in a candle are at most this share of its volume",
      num("--participation-pct"),
      DEFAULT_PARTICIPATION * 100,
    )
    .option(
      "--network <network>",
      "whose recorded data: mainnet | testnet | paper (default: HL_NETWORK, else paper)",
    )
    .option(
      "--data-dir <dir>",
      "data directory root, market data under <dir>/market (default: DATA_DIR, else ./data)",
    )
    .option("--report <file>", "HTML report file (default: <data-dir>/backtests/wolf_<preset>_<run>.html)")
    .option("--json", "print the figures as JSON")
    .option("--verbose", "print WOLF's own lines (entries, exits, refusals) to stderr")
    .action(async (o: WolfBacktestFlags) => {
      if (!o.from || !o.to)
        throw new UserError("--from and --to are required (e.g. --from 2026-01-01 --to 2026-01-31)");
      const config = buildWolfConfig(
        o.preset,
        { budget: o.budget, slots: o.slots, leverage: o.leverage, tickSeconds: o.tick },
        o.config ? readConfigFile(o.config) : {},
      );
      const { formatWolfSummary, wolfBacktestCommand } = await import(
        "../backtest/wolf/wolf-backtest-command.ts"
      );
      const r = await wolfBacktestCommand({
        preset: o.preset,
        config,
        from: o.from,
        to: o.to,
        ...(o.coins
          ? {
              coins: o.coins
                .split(",")
                .map((c) => c.trim())
                .filter(Boolean),
            }
          : {}),
        interval: o.interval,
        feeTier: o.feeTier,
        latencyMs: o.latencyMs,
        slippageBps: o.slippageBps,
        participation: o.participationPct / 100,
        network: resolveNetwork(o.network),
        dataDir: dataDirOf(o),
        ...(o.report ? { report: o.report } : {}),
        ...(o.verbose ? { log: (line: string) => process.stderr.write(`${line}\n`) } : {}),
      });
      const out = o.json
        ? [JSON.stringify({ ...r.summary, report: r.reportPath })]
        : formatWolfSummary(r.summary, r.reportPath);
      process.stdout.write(`${out.join("\n")}\n`);
    });
  wolf
    .command("status")
    .description("Slots, positions and PnL from state.json")
    .option("--data-dir <dir>", "data directory (default: DATA_DIR, else ./data)")
    .option("--json", "print the contract's status object")
    .action(async (o: { dataDir?: string; json?: boolean }) => {
      const r = loadAnyWolfState(dataDirOf(o));
      if (r.kind === "missing") {
        process.stdout.write(o.json ? `${JSON.stringify({ status: "stopped" })}\n` : NO_STATE_TEXT);
        return;
      }
      const { wolfStatus } = await import("../wolf/status.ts");
      process.stdout.write(
        o.json ? `${JSON.stringify(wolfStatus(r.state), null, 2)}\n` : wolfStatusText(r.state),
      );
    });
  wolf
    .command("config")
    .description("The effective config (preset < --config file): every key, its value and meaning")
    .option(
      "-p, --preset <name>",
      `preset: ${WOLF_PRESET_NAMES.join(" | ")}`,
      process.env.WOLF_PRESET || "default",
    )
    .option("-c, --config <file>", "JSON file of config fields (default: WOLF_CONFIG)")
    .option("--json", "print the config as JSON (a file `--config` accepts)")
    .action(async (o: { preset: string; config?: string; json?: boolean }) => {
      const file = o.config ?? (process.env.WOLF_CONFIG || undefined);
      const config = buildWolfConfig(o.preset, {}, file ? readConfigFile(file) : {});
      if (o.json) {
        process.stdout.write(`${JSON.stringify(config, null, 2)}\n`);
        return;
      }
      const { wolfConfigDocs } = await import("../wolf/config-docs.ts");
      const docs = wolfConfigDocs();
      const width = Math.max(...docs.map((d) => `${d.key} = ${JSON.stringify(config[d.key])}`.length));
      for (const d of docs) {
        const line = `${d.key} = ${JSON.stringify(config[d.key])}`;
        process.stdout.write(`${line.padEnd(width)}  # ${d.description}\n`);
      }
    });
  wolf
    .command("presets")
    .description("The WOLF presets")
    .action(() => {
      for (const name of WOLF_PRESET_NAMES) {
        const c = buildWolfConfig(name);
        process.stdout.write(
          `\n${name}:\n  budget: $${c.total_budget.toLocaleString("en-US")}\n  max_slots: ${c.max_slots}\n  leverage: ${c.leverage.toFixed(1)}x\n  margin_per_slot: $${c.margin_per_slot.toFixed(2)}\n  scanner_threshold: ${c.scanner_score_threshold}\n  movers_confidence: ${c.movers_confidence_threshold}\n  daily_loss_limit: $${c.daily_loss_limit.toLocaleString("en-US")}\n  dsl_preset: ${c.dsl_preset}\n`,
        );
      }
    });
}

function registerDsl(program: Command): void {
  const dsl = program.command("dsl").description("DSL trailing stop: presets, guards, what-if");
  dsl
    .command("presets")
    .description("The DSL presets")
    .action(() => {
      for (const name of DSL_PRESET_NAMES) {
        const p = dslConfigFromPreset(name, { direction: "long", leverage: 10 });
        const lines = [
          "",
          name.toUpperCase(),
          `  Phase 1: retrace=${(p.phase1_retrace * 100).toFixed(1)}%, breaches=${p.phase1_max_breaches}`,
          `  Phase 2: retrace=${(p.phase2_retrace * 100).toFixed(1)}%, breaches=${p.phase2_max_breaches}`,
          `  Decay: ${p.breach_decay_mode}`,
          `  Breach interval: ${p.breach_interval_ms / 1000}s`,
        ];
        if (p.stagnation_enabled)
          lines.push(
            `  Stagnation TP: ROE>=${p.stagnation_min_roe.toFixed(1)}%, timeout=${p.stagnation_timeout_ms / 1000}s`,
          );
        lines.push("  Tiers:");
        p.tiers.forEach((t, i) => {
          const extra = [
            t.retrace !== undefined ? `retrace=${(t.retrace * 100).toFixed(1)}%` : "",
            t.max_breaches !== undefined ? `breaches=${t.max_breaches}` : "",
          ].filter(Boolean);
          lines.push(
            `    ${i}: trigger=${t.trigger_pct}% -> lock=${t.lock_pct}%${extra.length ? ` (${extra.join(", ")})` : ""}`,
          );
        });
        process.stdout.write(`${lines.join("\n")}\n`);
      }
    });
  dsl
    .command("status")
    .description("The WOLF slots' DSL guards (from $DATA_DIR/wolf/dsl)")
    .option("--data-dir <dir>", "data directory (default: DATA_DIR, else ./data)")
    .option("--all", "include closed guards")
    .action((o: { dataDir?: string; all?: boolean }) => {
      const { guards, corrupt } = listGuards(dslDir(dataDirOf(o)));
      const shown = guards.filter((g) => o.all || !g.state.closed);
      if (shown.length === 0) process.stdout.write("No active DSL guards.\n");
      else {
        process.stdout.write(
          `${"ID".padEnd(30)}${"Inst".padEnd(12)}${"Dir".padEnd(6)}${"Entry".padStart(12)}${"Tier".padStart(5)}${"ROE%".padStart(8)}${"Breaches".padStart(9)}\n${"-".repeat(82)}\n`,
        );
        for (const g of shown) {
          const s = g.state;
          process.stdout.write(
            `${s.position_id.padEnd(30)}${s.instrument.padEnd(12)}${g.config.direction.padEnd(6)}${s.entry_price.toString().padStart(12)}${(s.tier_index < 0 ? "P1" : `T${s.tier_index}`).padStart(5)}${`${s.current_roe.toFixed(1)}%`.padStart(8)}${String(s.breach_count).padStart(9)}${s.closed ? `  closed: ${s.close_reason}` : ""}\n`,
          );
        }
      }
      for (const name of corrupt) process.stderr.write(`unreadable guard file: ${name}\n`);
    });
  withNet(dsl.command("start").description("Guard an open exchange position with a DSL trailing stop"))
    .argument("<instrument>", "e.g. ETH-PERP")
    .option("-p, --preset <name>", DSL_PRESET_NAMES.join(" | "), "tight")
    .option("-l, --leverage <x>", "leverage the ROE is measured at", num("--leverage"), 10)
    .option("-t, --tick <seconds>", "poll interval besides the price stream", num("--tick"), 5)
    .option("--max-ticks <n>", "stop after n polls (0 = until closed)", num("--max-ticks"), 0)
    .option("-e, --entry <price>", "guard this entry price instead of the exchange's position (with -s, -d)")
    .option("-s, --size <size>", "position size of the given entry")
    .option("-d, --direction <side>", "long | short, of the given entry")
    .option("--dry-run", "report what the stop would do; never send the close")
    .action(
      async (
        instrument: string,
        o: NetOpts & { preset: string; leverage: number; tick: number; maxTicks: number } & {
          entry?: string;
          size?: string;
          direction?: string;
          dryRun?: boolean;
        },
      ) => {
        const given = givenEntry(o);
        const s = await session(o);
        const say = (l: string) => process.stdout.write(`${l}\n`);
        const alerter = alerterFromEnv(
          agentAlertSource(`hl dsl start ${instrument} (${networkOf(o)})`, dataDirOf(o), process.env),
        );
        const alert = (text: string) => alerter.send("crash", text);
        const release = keepRunningOnStrayErrors({ log: (l) => process.stderr.write(`${l}\n`), alert });
        try {
          const market = await s.client.market(instrument);
          const port = new HlWolfPort(s.client);
          const guard = await StandaloneGuard.open({
            port,
            coin: market.coin,
            dir: join(dataDirOf(o), "dsl"),
            preset: o.preset,
            leverage: o.leverage,
            log: say,
            alert,
            ...(given ? { given } : {}),
            dryRun: o.dryRun === true,
            backstops: new HlBackstopPort(s.client),
          });
          const g = guard.guard;
          say(
            `Guarding ${g.state.instrument} ${g.config.direction} ${g.state.position_size} @ ${g.state.entry_price} | ${o.preset} | ${o.leverage}x | state ${join(dataDirOf(o), "dsl", `${g.state.position_id}.json`)}`,
          );
          await runGuardLoop({
            guard,
            port,
            coin: market.coin,
            tickMs: o.tick * 1000,
            maxTicks: o.maxTicks,
            signal: stopSignal().signal,
            log: say,
            alert,
          });
          await guard.settled(); // a close's stop cancellation is sent before exit
        } finally {
          release();
          await alerter.flush();
          await s.close();
        }
      },
    );
  dsl
    .command("simulate")
    .description("Run the guard over a price path and print each decision")
    .requiredOption("-e, --entry <price>", "entry price", num("--entry"))
    .requiredOption("--prices <list>", "comma-separated prices")
    .option("-d, --direction <dir>", "long | short", "long")
    .option("-l, --leverage <x>", "leverage", num("--leverage"), 10)
    .option("-p, --preset <name>", DSL_PRESET_NAMES.join(" | "), "tight")
    .option("--step <seconds>", "seconds between prices", num("--step"), 60)
    .action(
      (o: {
        entry: number;
        prices: string;
        direction: string;
        leverage: number;
        preset: string;
        step: number;
      }) => {
        if (o.direction !== "long" && o.direction !== "short")
          throw new UserError("--direction must be long or short");
        const cfg = dslConfigFromPreset(o.preset, { direction: o.direction, leverage: o.leverage });
        let st = newDslState({
          position_id: "simulate",
          instrument: "SIM",
          entry_price: o.entry,
          position_size: "1",
          nowMs: 0,
        });
        for (const [i, raw] of o.prices.split(",").entries()) {
          const r = evaluateDsl(cfg, st, Number(raw), (i + 1) * o.step * 1000);
          st = r.state;
          process.stdout.write(
            `${raw.trim().padStart(12)}  ${r.action.padEnd(12)} floor=${r.effective_floor.toFixed(4)}  ${r.reason}\n`,
          );
          if (r.action === "close") break;
        }
      },
    );
}

interface SignalOpts extends NetOpts {
  preset: string;
  json?: boolean;
  maxScans: number;
  tick: number;
  topN?: number;
  minVolume?: number;
  scoreThreshold?: number;
}

async function loopScans(o: SignalOpts, once: boolean, scan: (n: number) => Promise<void>): Promise<void> {
  const ac = stopSignal();
  let done = 0;
  while (!ac.signal.aborted && (once ? done < 1 : o.maxScans === 0 || done < o.maxScans)) {
    try {
      await scan(done + 1);
    } catch (e) {
      process.stderr.write(`scan failed: ${(e as Error).message}\n`);
    }
    done++; // a failed scan counts, so --max-scans always ends
    if (once || (o.maxScans !== 0 && done >= o.maxScans)) break;
    await new Promise<void>((r) => {
      const t = setTimeout(r, o.tick * 1000);
      ac.signal.addEventListener(
        "abort",
        () => {
          clearTimeout(t);
          r();
        },
        { once: true },
      );
    });
  }
}

function registerScanner(program: Command): void {
  const scanner = program
    .command("scanner")
    .description("Opportunity scanner (staged funnel, three pillars, BTC macro)");
  const opts = (c: Command) =>
    withNet(c)
      .option("-p, --preset <name>", Object.keys(SCANNER_PRESETS).join(" | "), "default")
      .option("-n, --top-n <n>", "deep-dive this many assets", num("--top-n"))
      .option("--min-volume <usd>", "24 h volume minimum", num("--min-volume"))
      .option("--score-threshold <n>", "final score minimum", num("--score-threshold"))
      .option("--json", "print each scan as JSON");
  const action = (once: boolean) => async (o: SignalOpts) => {
    const cfg = scannerConfig(o.preset, {
      top_n_deep: o.topN,
      min_volume_24h: o.minVolume,
      score_threshold: o.scoreThreshold,
    });
    const s = await session(o);
    try {
      const port = new HlWolfPort(s.client);
      const cache = new CandleCache(port);
      await loopScans(o, once, async (n) => {
        const { scanOnce } = await import("../signals/run.ts");
        const { result } = await scanOnce(port, cache, cfg, dataDirOf(o));
        process.stdout.write(o.json ? `${JSON.stringify(result, null, 2)}\n` : formatScan(result, n));
      });
    } finally {
      await s.close();
    }
  };
  opts(scanner.command("once").description("Run one scan")).action(action(true));
  opts(scanner.command("run").description("Scan on an interval"))
    .option("-t, --tick <seconds>", "seconds between scans", num("--tick"), 900)
    .option("--max-scans <n>", "stop after n scans (0 = forever)", num("--max-scans"), 0)
    .action(action(false));
  scanner
    .command("status")
    .description("The last scan from scan-history.json")
    .option("--data-dir <dir>", "data directory (default: DATA_DIR, else ./data)")
    .action((o: NetOpts) => {
      const h = readHistory<ScanResult>(scannerHistoryPath(dataDirOf(o))).entries;
      const last = h.at(-1);
      if (!last) return void process.stdout.write("No scan history found.\n");
      process.stdout.write(
        `Last scan ${Math.round((Date.now() - last.scan_time_ms) / 1000)}s ago, BTC ${last.btc_macro.trend}\n`,
      );
      process.stdout.write(formatScan(last, h.length));
    });
  scanner
    .command("presets")
    .description("The scanner presets")
    .action(() => {
      for (const name of Object.keys(SCANNER_PRESETS))
        process.stdout.write(formatScannerPreset(name, scannerConfig(name)));
    });
}

function registerMovers(program: Command): void {
  const movers = program.command("movers").description("Emerging movers (OI, volume, funding, breakout)");
  const opts = (c: Command) =>
    withNet(c)
      .option("-p, --preset <name>", Object.keys(MOVERS_PRESETS).join(" | "), "default")
      .option("--min-volume <usd>", "24 h volume minimum", num("--min-volume"))
      .option("--json", "print each scan as JSON");
  const action = (once: boolean) => async (o: SignalOpts) => {
    const cfg = moversConfig(o.preset, { volume_min_24h: o.minVolume });
    const s = await session(o);
    try {
      const port = new HlWolfPort(s.client);
      const cache = new CandleCache(port);
      await loopScans(o, once, async (n) => {
        const { moversOnce } = await import("../signals/run.ts");
        const m = await moversOnce(port, cache, cfg, dataDirOf(o));
        process.stdout.write(o.json ? `${JSON.stringify(m, null, 2)}\n` : formatMovers(m, cfg, n));
      });
    } finally {
      await s.close();
    }
  };
  opts(movers.command("once").description("Run one scan")).action(action(true));
  opts(movers.command("run").description("Scan on an interval"))
    .option("-t, --tick <seconds>", "seconds between scans", num("--tick"), 60)
    .option("--max-scans <n>", "stop after n scans (0 = forever)", num("--max-scans"), 0)
    .action(action(false));
  movers
    .command("status")
    .description("The last scan from scan-history.json")
    .option("--data-dir <dir>", "data directory (default: DATA_DIR, else ./data)")
    .action((o: NetOpts) => {
      const h = readHistory<MoversScan>(moversHistoryPath(dataDirOf(o))).entries;
      const last = h.at(-1);
      if (!last) return void process.stdout.write("No scan history found.\n");
      process.stdout.write(
        `Last scan ${Math.round((Date.now() - last.scan_time_ms) / 1000)}s ago, ${last.signals.length} signals\n`,
      );
      last.signals.slice(0, 10).forEach((x, i) => {
        process.stdout.write(
          `${i + 1}. ${x.signal_type} ${x.direction} ${x.asset} conf=${x.confidence.toFixed(0)}\n`,
        );
      });
    });
  movers
    .command("presets")
    .description("The movers presets")
    .action(() => {
      for (const name of Object.keys(MOVERS_PRESETS))
        process.stdout.write(formatMoversPreset(name, moversConfig(name)));
    });
}

/** `hl wolf …`, `hl dsl …`, `hl scanner …`, `hl movers …` */
export function register(program: Command): void {
  registerWolf(program);
  registerDsl(program);
  registerScanner(program);
  registerMovers(program);
}

import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Command } from "commander";
import { dataDir } from "../config/env.ts";
import { UserError } from "../core/errors.ts";
import { readKvFile } from "../engine/state-store.ts";
import { noEngineStateLine, statusFromKv } from "../engine/status.ts";
import { findStrategy, STRATEGY_IDS, strategyCatalog } from "../strategies/catalog.ts";
import { type StrategyParamDocs, strategyParamDocs } from "../strategies/params-docs.ts";
import { modeLabel } from "./mode-label.ts";

const pad = (s: string, n: number) => (s.length >= n ? `${s.slice(0, n - 1)} ` : s.padEnd(n));

/** `hl strategies` (the catalog) and `hl status` (the single-strategy engine's saved state). */
export function register(program: Command): void {
  program
    .command("strategies")
    .description("List the strategies with their type and default params, and the YEX markets")
    .option("--json", "print the catalog as JSON (same as GET /api/strategies)")
    .option(
      "--params [id]",
      "each param of strategy ID (or of all) with its default and meaning, as `name = default  # meaning` lines (JSON with --json)",
    )
    .action((opts: { json?: boolean; params?: string | boolean }) => {
      if (opts.params !== undefined) {
        const docs = paramDocsFor(opts.params);
        process.stdout.write(
          opts.json ? `${JSON.stringify(docs, null, 2)}\n` : `${docs.map(paramLines).join("\n\n")}\n`,
        );
        return;
      }
      const catalog = strategyCatalog();
      if (opts.json) {
        process.stdout.write(`${JSON.stringify(catalog, null, 2)}\n`);
        return;
      }
      const lines = [
        "Available Strategies",
        `${pad("Name", 20)}${pad("Type", 8)}${pad("Description", 60)}Params`,
      ];
      for (const [id, s] of Object.entries(catalog.strategies).sort(([a], [b]) => a.localeCompare(b))) {
        const params = Object.entries(s.params)
          .map(([k, v]) => `${k}=${v}`)
          .join(", ");
        lines.push(`${pad(id, 20)}${pad(s.type, 8)}${pad(s.description, 60)}${params}`);
      }
      lines.push("", "YEX Markets (Nunchi HIP-3)", `${pad("Name", 20)}Description`);
      for (const [name, d] of Object.entries(catalog.markets)) lines.push(`${pad(name, 20)}${d}`);
      process.stdout.write(`${lines.join("\n")}\n`);
    });

  program
    .command("status")
    .description("Show the saved state of the single-strategy engine: position, PnL, orders, risk")
    .option(
      "--data-dir <dir>",
      "data directory root; reads <dir>/cli/state.db (default: DATA_DIR, else ./data)",
    )
    .option("--json", "print the status object (same shape as GET /api/status)")
    .option("-w, --watch", "refresh until Ctrl-C")
    .option("--interval <seconds>", "seconds between refreshes with --watch", "5")
    .action(async (opts: { dataDir?: string; json?: boolean; watch?: boolean; interval: string }) => {
      if (!opts.watch) return showStatus(opts);
      const seconds = Number(opts.interval);
      if (!(seconds > 0))
        throw new UserError(`--interval must be a positive number of seconds, got "${opts.interval}"`);
      const stop = new AbortController();
      for (const sig of ["SIGINT", "SIGTERM"] as const) process.once(sig, () => stop.abort());
      while (!stop.signal.aborted) {
        if (process.stdout.isTTY) process.stdout.write("\x1b[2J\x1b[H");
        showStatus(opts);
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, seconds * 1000);
          const wake = () => {
            clearTimeout(t);
            resolve();
          };
          stop.signal.addEventListener("abort", wake, { once: true });
        });
      }
    });
}

/** One status print of `hl status` (text or --json). */
function showStatus(opts: { dataDir?: string; json?: boolean }): void {
  const dir = opts.dataDir ?? dataDir();
  const path = join(dir, "cli", "state.db");
  const kv = existsSync(path) ? readKvFile(path) : {};
  const status = statusFromKv(kv);
  if (opts.json) {
    process.stdout.write(`${JSON.stringify(status)}\n`);
    return;
  }
  if (status.status === "stopped") {
    const wolf = existsSync(join(dir, "wolf", "state.json"));
    process.stdout.write(`${noEngineStateLine(resolve(dir), { wolf })}\n`);
    return;
  }
  const run = parseJson(kv.run) as
    | { status?: string; mode?: string; network?: string; heartbeat_ms?: number }
    | undefined;
  const risk = parseJson(kv.risk) as
    | {
        state?: {
          reduce_only?: boolean;
          reasons?: string[];
          halted?: boolean;
          halt_reason?: string;
          drawdown?: string;
          daily_pnl?: string;
        };
      }
    | undefined;
  const started = Number(parseJson(kv.start_time_ms) ?? 0);
  const lines = [
    "=== hl-agent strategy engine ===",
    [
      `Strategy: ${status.engine} | Instrument: ${status.instrument}`,
      // A predecessor's state.db has no run record: say so once instead of printing placeholders.
      run
        ? `Mode: ${modeLabel(run.mode, run.network)} | Run: ${run.status ?? "unknown"}`
        : "Run record: none (state written by another version)",
    ].join(" | "),
    [
      `Ticks: ${status.tick_count}`,
      ...(started ? [`Since: ${new Date(started).toISOString()}`] : []),
      ...(run?.heartbeat_ms ? [`Last tick: ${new Date(run.heartbeat_ms).toISOString()}`] : []),
    ].join(" | "),
    `Orders: ${status.total_orders} placed, ${status.total_fills} fills`,
    `Position: ${status.position_qty}`,
    `PnL: unrealized ${status.unrealized_pnl} | realized (net of fees) ${status.realized_pnl}`,
    `Risk: ${risk?.state?.halted ? `HALTED (${risk.state.halt_reason})` : risk?.state?.reduce_only ? `REDUCE-ONLY (${(risk.state.reasons ?? []).join(", ")})` : "OK"} | drawdown ${risk?.state?.drawdown ?? "0"} | daily PnL ${risk?.state?.daily_pnl ?? "0"}`,
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
}

/** The param docs of the strategy `id` (an alias works too), or of every strategy when none is given. */
function paramDocsFor(id: string | boolean): StrategyParamDocs[] {
  const all = strategyParamDocs();
  if (typeof id !== "string") return all;
  const s = findStrategy(id);
  if (!s) throw new UserError(`unknown strategy "${id}" (strategies: ${STRATEGY_IDS.join(", ")})`);
  return all.filter((d) => d.id === s.id);
}

/** One strategy's params as `name = default  # meaning` lines under a `# id (type): description` header. */
function paramLines(d: StrategyParamDocs): string {
  const alias = d.aliases.length > 0 ? ` (also: ${d.aliases.join(", ")})` : "";
  const assigns = d.params.map((p) => `${p.name} = ${JSON.stringify(p.default)}`);
  const width = Math.max(...assigns.map((a) => a.length));
  return [
    `# ${d.id}${alias} [${d.type}]: ${d.description}`,
    ...d.params.map((p, i) => `${assigns[i]!.padEnd(width)}  # ${p.description}`),
  ].join("\n");
}

function parseJson(raw: string | undefined): unknown {
  if (raw === undefined) return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

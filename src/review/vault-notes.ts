import { statSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../store/atomic.ts";
import type { HowlMetrics } from "./howl-metrics.ts";
import { readVaultContext, type VaultContext, vaultPath } from "./vault.ts";

type Env = Record<string, string | undefined>;

/** Folder of this agent's notes inside the vault. */
const VAULT_PROJECT_DIR = join("projects", "hl-agent");

/**
 * The vault the trading loops use: only when OBSIDIAN_VAULT is set and names a directory (the MCP
 * tool's `~/obsidian-vault` default is for reading on request, not for loops writing into it).
 */
export function configuredVault(env: Env = process.env): string | null {
  if (!env.OBSIDIAN_VAULT?.trim()) return null;
  const root = vaultPath(env);
  try {
    return statSync(root).isDirectory() ? root : null;
  } catch {
    return null;
  }
}

/** The vault's trading context, when a vault is configured and readable. */
export function configuredVaultContext(env: Env = process.env): VaultContext | null {
  const root = configuredVault(env);
  if (!root) return null;
  const ctx = readVaultContext({ vaultPath: root });
  return "status" in ctx ? null : ctx;
}

/** One line for the operator: what the vault says. Pure. */
export function vaultSummary(ctx: VaultContext): string {
  const theses = ctx.market_theses.map((t) => `${t.instrument} ${t.direction} (${t.conviction})`);
  return `Notes vault ${ctx.vault_path}: ${ctx.raw_notes_count} trading note(s); watchlist: ${ctx.watchlist.join(", ") || "none"}; theses: ${theses.join(", ") || "none"}`;
}

/** What the vault says about an instrument, for a journal entry's reasoning; null when nothing. Pure. */
export function vaultNoteFor(
  ctx: VaultContext,
  instrument: string,
  direction: "long" | "short",
): string | null {
  const parts: string[] = [];
  if (ctx.watchlist.includes(instrument)) parts.push(`${instrument} is on the vault watchlist`);
  for (const t of ctx.market_theses.filter((x) => x.instrument === instrument)) {
    const agrees = t.direction.toLowerCase() === direction;
    parts.push(
      `the vault thesis (${t.path}) is ${t.direction}, ${t.conviction} conviction — ${agrees ? "with" : "against"} this trade`,
    );
  }
  return parts.length === 0 ? null : `Notes: ${parts.join("; ")}.`;
}

/** YAML front matter with plain scalars (strings JSON-quoted, so any text stays one valid scalar). */
function frontMatter(fields: Record<string, string | number | string[]>): string {
  const lines = Object.entries(fields).map(([k, v]) =>
    Array.isArray(v) ? `${k}: [${v.join(", ")}]` : `${k}: ${typeof v === "number" ? v : JSON.stringify(v)}`,
  );
  return `---\n${lines.join("\n")}\n---\n`;
}

/**
 * Write the day's HOWL report into the vault (`projects/hl-agent/howl/<date>.md`, replaced by a later
 * run of the same day), tagged so the vault's own trading notes can link to it. Returns the path.
 */
export function writeVaultHowlReport(
  vault: string,
  date: string,
  metrics: Pick<HowlMetrics, "win_rate" | "net_pnl" | "fdr" | "total_round_trips">,
  markdown: string,
): string {
  const path = join(vault, VAULT_PROJECT_DIR, "howl", `${date}.md`);
  const head = frontMatter({
    tags: ["howl", "wolf", "trading-review"],
    date,
    win_rate: metrics.win_rate,
    net_pnl: metrics.net_pnl,
    fdr: metrics.fdr ?? 0,
    round_trips: metrics.total_round_trips,
  });
  writeFileAtomic(path, `${head}\n${markdown}`);
  return path;
}

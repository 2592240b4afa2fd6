import { type Dirent, readdirSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import { join, relative } from "node:path";

type Matter = typeof import("gray-matter");
let matterParser: Matter | undefined;
/** The front-matter parser, loaded on the first note read: most processes never read a vault. */
function matter(...args: Parameters<Matter>): ReturnType<Matter> {
  matterParser ??= createRequire(import.meta.url)("gray-matter") as Matter;
  return matterParser(...args);
}

/** Tags that make a note part of the trading context. */
const TRADING_TAGS = ["trading", "market-thesis", "wolf", "watchlist", "risk"] as const;
/** Risk settings a `risk` note may carry in its front matter. */
const RISK_KEYS = ["max_loss", "preferred_leverage", "max_slots", "daily_loss_limit"] as const;

const TICKER = /\b[A-Z][A-Z0-9]{1,9}-(?:PERP|USDYP)\b/g;
const MAX_NOTE_BYTES = 1_000_000;
const MAX_NOTES = 5_000;

interface MarketThesis {
  instrument: string;
  direction: string;
  conviction: string;
  note: string;
  path: string;
}

export interface VaultContext {
  vault_path: string;
  watchlist: string[];
  market_theses: MarketThesis[];
  risk_preferences: Record<string, unknown>;
  raw_notes_count: number;
}

type VaultContextResult = VaultContext | { status: "unavailable"; message: string };

type Env = Record<string, string | undefined>;

export function vaultPath(env: Env = process.env): string {
  const raw = env.OBSIDIAN_VAULT || "~/obsidian-vault";
  return raw === "~" || raw.startsWith("~/") ? join(homedir(), raw.slice(1)) : raw;
}

function refuseCode(): never {
  throw new Error("executable front matter is not read");
}

/** Front matter as YAML or JSON only: a `---js` block would otherwise be evaluated as code. */
function parseNote(text: string): { data: Record<string, unknown>; content: string } {
  const file = matter(text, { engines: { js: refuseCode, javascript: refuseCode, coffee: refuseCode } });
  return { data: file.data as Record<string, unknown>, content: file.content };
}

/** Tags as a set, whether written `[a, b]`, as a YAML block list, `a, b`, or `#a #b`. */
function tagsOf(data: Record<string, unknown>): Set<string> {
  const raw = data.tags;
  const items = Array.isArray(raw) ? raw : typeof raw === "string" ? raw.split(/[,\s]+/) : [];
  return new Set(items.map((t) => String(t).trim().replace(/^#/, "").toLowerCase()).filter(Boolean));
}

/** Markdown files under the vault, sorted, skipping hidden entries (relative to the vault) and symlinks. */
function markdownFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (out.length >= MAX_NOTES) return;
      if (e.name.startsWith(".")) continue;
      const path = join(dir, e.name);
      if (e.isDirectory()) walk(path);
      else if (e.isFile() && e.name.toLowerCase().endsWith(".md")) out.push(path);
    }
  };
  walk(root);
  return out;
}

/**
 * Trading context from a markdown notes vault (`OBSIDIAN_VAULT`, default `~/obsidian-vault`): tickers
 * from watchlist notes, theses from `market-thesis` notes, risk preferences from `risk` notes
 * (later notes, in path order, override earlier ones). Unreadable notes are passed over.
 */
export function readVaultContext(opts: { vaultPath?: string; env?: Env } = {}): VaultContextResult {
  const root = opts.vaultPath ?? vaultPath(opts.env);
  let isDir = false;
  try {
    isDir = statSync(root).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) return { status: "unavailable", message: `Notes vault not found at ${root}` };

  const watchlist: string[] = [];
  const theses: MarketThesis[] = [];
  const risk: Record<string, unknown> = {};
  let count = 0;
  for (const path of markdownFiles(root)) {
    let note: { data: Record<string, unknown>; content: string };
    try {
      if (statSync(path).size > MAX_NOTE_BYTES) continue;
      note = parseNote(readFileSync(path, "utf8"));
    } catch {
      continue;
    }
    const tags = tagsOf(note.data);
    if (!TRADING_TAGS.some((t) => tags.has(t))) continue;
    count++;
    const rel = relative(root, path);
    if (tags.has("watchlist") || rel.toLowerCase().includes("watchlist")) {
      const listed = Array.isArray(note.data.instruments) ? note.data.instruments.map(String) : [];
      for (const ticker of [...listed, ...(note.content.match(TICKER) ?? [])]) {
        if (!watchlist.includes(ticker)) watchlist.push(ticker);
      }
    }
    if (tags.has("market-thesis") && note.data.instrument && note.data.direction) {
      theses.push({
        instrument: String(note.data.instrument),
        direction: String(note.data.direction),
        conviction: note.data.conviction ? String(note.data.conviction) : "medium",
        note: note.content.trim().slice(0, 200),
        path: rel,
      });
    }
    if (tags.has("risk")) {
      for (const key of RISK_KEYS) if (note.data[key] !== undefined) risk[key] = note.data[key];
    }
  }
  return {
    vault_path: root,
    watchlist,
    market_theses: theses,
    risk_preferences: risk,
    raw_notes_count: count,
  };
}

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import matter from "gray-matter";
import { afterEach, describe, expect, it, vi } from "vitest";
import { runHowl } from "../../src/review/howl.ts";
import { readJournal } from "../../src/review/journal.ts";
import {
  configuredVault,
  configuredVaultContext,
  vaultNoteFor,
  vaultSummary,
} from "../../src/review/vault-notes.ts";
import { journalClosedSlot } from "../../src/wolf/records.ts";
import { emptySlot } from "../../src/wolf/state.ts";
import { tempDataDir, trip, writeTrades } from "./helpers.ts";

function vaultWithThesis(): string {
  const vault = tempDataDir();
  mkdirSync(join(vault, "theses"), { recursive: true });
  writeFileSync(
    join(vault, "theses", "eth.md"),
    "---\ntags: [market-thesis]\ninstrument: ETH-PERP\ndirection: long\nconviction: high\n---\nFlows.\n",
  );
  writeFileSync(join(vault, "watch.md"), "---\ntags: [watchlist]\n---\nETH-PERP, SOL-PERP\n");
  return vault;
}

afterEach(() => vi.unstubAllEnvs());

describe("notes vault in the trading loops", () => {
  it("is used only when OBSIDIAN_VAULT is set and is a directory", () => {
    const vault = vaultWithThesis();
    expect(configuredVault({})).toBeNull();
    expect(configuredVault({ OBSIDIAN_VAULT: join(vault, "missing") })).toBeNull();
    expect(configuredVault({ OBSIDIAN_VAULT: vault })).toBe(vault);
    const ctx = configuredVaultContext({ OBSIDIAN_VAULT: vault })!;
    expect(vaultSummary(ctx)).toContain("watchlist: ETH-PERP, SOL-PERP; theses: ETH-PERP long (high)");
    expect(vaultNoteFor(ctx, "ETH-PERP", "short")).toBe(
      "Notes: ETH-PERP is on the vault watchlist; the vault thesis (theses/eth.md) is long, high conviction — against this trade.",
    );
    expect(vaultNoteFor(ctx, "BTC-PERP", "long")).toBeNull();
  });

  it("a WOLF journal entry carries what the vault says about its instrument", () => {
    const vault = vaultWithThesis();
    vi.stubEnv("OBSIDIAN_VAULT", vault);
    const dataDir = tempDataDir();
    const slot = { ...emptySlot(0), instrument: "ETH-PERP", side: "long" as const, high_water_roe: 12 };
    journalClosedSlot(
      dataDir,
      slot,
      {
        slot_id: 0,
        instrument: "ETH-PERP",
        side: "long",
        entry_size: "1",
        entry_price: "2500",
        exit_price: "2550",
        realized_pnl: "49",
        roe_pct: 20,
        close_reason: "dsl_close: tier 1",
        dsl_phase: 2,
        opened_at_ms: 1_000,
        closed_at_ms: 2_000,
        entry_source: "scanner",
        fees: "1",
      },
      1000,
      () => undefined,
    );
    const [entry] = readJournal({ dataDir });
    expect(entry!.entry_reasoning).toMatch(/^Long ETH-PERP on a scanner opportunity/);
    expect(entry!.entry_reasoning).toContain("is long, high conviction — with this trade.");
    expect(entry!.peak_roe_pct).toBe(20);
  });

  it("HOWL copies its report into the vault with front matter, one note per day", () => {
    const vault = vaultWithThesis();
    const dataDir = tempDataDir();
    writeTrades(dataDir, trip({ entry: 100, exit: 110, fee: 0.5, t: Date.UTC(2026, 2, 3) }));
    const first = runHowl({ dataDir, nowMs: Date.UTC(2026, 2, 3, 14), vault });
    expect(first.vaultPath).toBe(join(vault, "projects", "hl-agent", "howl", "2026-03-03.md"));
    const second = runHowl({ dataDir, nowMs: Date.UTC(2026, 2, 3, 15), vault });
    expect(second.vaultPath).toBe(first.vaultPath);
    const note = matter(readFileSync(second.vaultPath!, "utf8"));
    expect(note.data).toMatchObject({
      tags: ["howl", "wolf", "trading-review"],
      date: "2026-03-03",
      net_pnl: 9,
      round_trips: 1,
    });
    expect(note.content).toContain("# HOWL Report — 2026-03-03 15:00 UTC");
    expect(runHowl({ dataDir, nowMs: Date.UTC(2026, 2, 3, 16) }).vaultPath).toBeNull();
  });
});

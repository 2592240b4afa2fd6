import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { readVaultContext, vaultPath } from "../../src/review/vault.ts";
import { tempDataDir } from "./helpers.ts";

function note(root: string, rel: string, text: string) {
  const path = join(root, rel);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

describe("notes vault context", () => {
  it("is unavailable when the vault does not exist", () => {
    expect(readVaultContext({ vaultPath: "/nonexistent/vault" })).toMatchObject({ status: "unavailable" });
  });

  it("resolves OBSIDIAN_VAULT, defaulting to ~/obsidian-vault", () => {
    expect(vaultPath({ OBSIDIAN_VAULT: "/x/v" })).toBe("/x/v");
    expect(vaultPath({})).toMatch(/obsidian-vault$/);
    expect(vaultPath({ OBSIDIAN_VAULT: "~/notes" })).not.toContain("~");
  });

  it("reads watchlists, theses and risk preferences; ignores untagged notes", () => {
    const root = tempDataDir();
    note(
      root,
      "lists/majors.md",
      "---\ntags: [watchlist]\n---\nWatching ETH-PERP and BTC-PERP, maybe VXX-USDYP. ETH-PERP again.\n",
    );
    note(
      root,
      "watchlist/alts.md",
      "---\ntags:\n  - trading\ninstruments: [SOL-PERP]\n---\nAlso HYPE-PERP\n",
    );
    note(
      root,
      "theses/eth.md",
      "---\ntags: market-thesis\ninstrument: ETH-PERP\ndirection: long\n---\nETF flows keep rising.\n",
    );
    note(
      root,
      "theses/btc.md",
      "---\ntags: [market-thesis]\ninstrument: BTC-PERP\ndirection: short\nconviction: high\n---\nTop is in.\n",
    );
    note(root, "risk/a.md", "---\ntags: [risk]\nmax_loss: 100\npreferred_leverage: 3\n---\n");
    note(root, "risk/b.md", "---\ntags: [risk]\nmax_loss: 50\nunrelated: 1\n---\n");
    note(root, "diary.md", "---\ntags: [personal]\n---\nDOGE-PERP to the moon\n");
    note(root, "plain.md", "no front matter at all, SOL-PERP\n");
    const ctx = readVaultContext({ vaultPath: root });
    if ("status" in ctx) throw new Error("expected a context");
    expect(ctx.watchlist).toEqual(["ETH-PERP", "BTC-PERP", "VXX-USDYP", "SOL-PERP", "HYPE-PERP"]);
    expect(ctx.market_theses).toEqual([
      {
        instrument: "BTC-PERP",
        direction: "short",
        conviction: "high",
        note: "Top is in.",
        path: "theses/btc.md",
      },
      {
        instrument: "ETH-PERP",
        direction: "long",
        conviction: "medium",
        note: "ETF flows keep rising.",
        path: "theses/eth.md",
      },
    ]);
    expect(ctx.risk_preferences).toEqual({ max_loss: 50, preferred_leverage: 3 });
    expect(ctx.raw_notes_count).toBe(6);
  });

  it("skips hidden folders inside the vault, but works when the vault itself lives under a dot folder", () => {
    const root = join(tempDataDir(), ".config", "vault");
    note(root, "w.md", "---\ntags: [watchlist]\n---\nETH-PERP\n");
    note(root, ".trash/old.md", "---\ntags: [watchlist]\n---\nLUNA-PERP\n");
    const ctx = readVaultContext({ vaultPath: root });
    if ("status" in ctx) throw new Error("expected a context");
    expect(ctx.watchlist).toEqual(["ETH-PERP"]);
  });

  it("never executes JavaScript front matter", () => {
    const root = tempDataDir();
    const g = globalThis as { __vaultPwned?: boolean };
    note(
      root,
      "evil.md",
      "---js\n{ tags: ['watchlist'], x: (globalThis.__vaultPwned = true) }\n---\nETH-PERP\n",
    );
    note(root, "ok.md", "---\ntags: [watchlist]\n---\nBTC-PERP\n");
    const ctx = readVaultContext({ vaultPath: root });
    expect(g.__vaultPwned).toBeUndefined();
    if ("status" in ctx) throw new Error("expected a context");
    expect(ctx.watchlist).toEqual(["BTC-PERP"]);
  });
});

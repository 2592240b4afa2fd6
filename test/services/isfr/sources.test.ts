import { describe, expect, it } from "vitest";
import { DEFAULT_CATALOG } from "../../../src/services/isfr/catalog.ts";
import { isfrConfig } from "../../../src/services/isfr/config.ts";
import { readFundingSources } from "../../../src/services/isfr/funding-source.ts";
import { hlFundingPort } from "../../../src/services/isfr/hl-funding.ts";
import { readYieldSources } from "../../../src/services/isfr/yields-source.ts";

const fundingEntries = DEFAULT_CATALOG.filter((e) => e.origin.kind === "funding");

describe("ISFR sources", () => {
  it("annualises hourly funding × 8760 and rejects garbage or implausible rates", async () => {
    const ok = await readFundingSources(
      fundingEntries,
      {
        hourlyFunding: async () =>
          new Map([
            ["BTC", "0.00001"],
            ["ETH", "-0.0000125"],
          ]),
      },
      1000,
    );
    expect(ok.get("hl-funding-btc")).toMatchObject({ ok: true });
    expect(String((ok.get("hl-funding-btc") as { rate: unknown }).rate)).toBe("0.0876");
    expect(String((ok.get("hl-funding-eth") as { rate: unknown }).rate)).toBe("-0.1095");

    const bad = await readFundingSources(
      fundingEntries,
      {
        hourlyFunding: async () =>
          new Map([
            ["BTC", "NaN"],
            ["ETH", "0.01"],
          ]),
      },
      1000,
    );
    expect(bad.get("hl-funding-btc")).toMatchObject({ ok: false });
    expect(bad.get("hl-funding-eth")).toMatchObject({ ok: false }); // 0.01/h = 8760 %/yr: not a rate
    const missing = await readFundingSources(fundingEntries, { hourlyFunding: async () => new Map() }, 1000);
    expect(missing.get("hl-funding-btc")).toMatchObject({ ok: false, error: expect.stringMatching(/BTC/) });
  });

  it("maps metaAndAssetCtxs funding by coin name", async () => {
    const port = hlFundingPort({
      assetContexts: async () =>
        [
          { universe: [{ name: "BTC" }, { name: "ETH" }] },
          [{ funding: "0.0000125" }, { funding: "0.00001" }],
        ] as never,
    });
    expect([...(await port.hourlyFunding())]).toEqual([
      ["BTC", "0.0000125"],
      ["ETH", "0.00001"],
    ]);
  });

  it("reports a yields API that answers with a non-JSON page for every yields source", async () => {
    const fakeFetch = (async () =>
      new Response("<html>rate limited</html>", { status: 200 })) as typeof fetch;
    const out = await readYieldSources(DEFAULT_CATALOG, "http://yields.invalid", 1000, fakeFetch);
    expect([...out.keys()].sort()).toEqual([
      "aave-v3-usdc",
      "compound-v3-usdc",
      "ethena-susde",
      "lido-steth",
    ]);
    for (const r of out.values())
      expect(r).toMatchObject({ ok: false, error: expect.stringMatching(/^yields API: /) });
  });

  it("reads weights, α and intervals from the environment, and refuses bad values", () => {
    const c = isfrConfig({
      ISFR_SOURCE_WEIGHTS: "aave-v3-usdc=0.7,compound-v3-usdc=0.3",
      ISFR_CLASS_WEIGHTS: "staking=0.5",
      ISFR_ALPHA: "0.3",
      ISFR_SNAPSHOT_INTERVAL_S: "60",
      DATA_DIR: "/tmp/x",
    });
    expect(c.catalog.find((e) => e.id === "aave-v3-usdc")?.weight).toBe("0.7");
    expect(c.derivativeClassWeights).toEqual({ structured: "0.4", funding: "0.4", staking: "0.5" });
    expect(c.staleAfterMs).toBe(120_000);
    expect(c.dbPath).toBe("/tmp/x/isfr.db");
    expect(c.port).toBe(8200);
    expect(c.yieldsUrl).toBe("https://yields.llama.fi");
    expect(() => isfrConfig({ ISFR_ALPHA: "1" })).toThrow(/ISFR_ALPHA/);
    expect(() => isfrConfig({ ISFR_SOURCE_WEIGHTS: "unknown=1" })).toThrow(/ISFR_SOURCE_WEIGHTS/);
  });
});

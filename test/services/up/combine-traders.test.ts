import { describe, expect, it } from "vitest";
import { parseHostedSpecs } from "../../../src/services/host/run.ts";
import {
  HOSTED_TRADERS_ENV,
  parseTraderArgs,
  traderRestartDelayMs,
} from "../../../src/services/host/traders.ts";
import { combineServices, combineTraders } from "../../../src/services/up/combine.ts";
import { upConfig } from "../../../src/services/up/config.ts";
import { plan } from "../../../src/services/up/plan.ts";
import { serviceTable } from "../../../src/services/up/table.ts";

const cfg = upConfig({ dataDir: "/tmp/d", agentPort: "18080", feedsPort: "18100", simPort: "18900" }, {});

describe("hl up: the house agents in one process", () => {
  const split = plan(cfg, { PATH: "/bin" });
  const combined = combineServices(combineTraders(split));
  const host = combined.find((c) => c.name === "traders")!;

  it("folds the four house agents into one child that stops with the traders; the WOLF agent stays apart", () => {
    expect(combined.map((c) => c.name)).toEqual(["sim", "agent", "traders", "services"]);
    expect(host.args).toEqual(["traders", "serve"]);
    expect(host.stopRound).toBe(0);
    expect(host.hosts!.map((h) => h.name)).toEqual(["house-1", "house-2", "house-3", "house-4"]);
  });

  it("gives each engine exactly the environment and command it had as its own process", () => {
    const specs = parseHostedSpecs(host.env[HOSTED_TRADERS_ENV], HOSTED_TRADERS_ENV);
    for (const spec of specs) {
      const alone = split.find((c) => c.name === spec.name)!;
      expect(spec.args).toEqual(alone.args);
      const { [HOSTED_TRADERS_ENV]: _, ...hostEnv } = host.env;
      // One process, one weight budget: the sum of what the engines had apart.
      expect({ ...hostEnv, ...spec.env }).toEqual({ ...alone.env, HL_RATE_WEIGHT_PER_MIN: "300" });
      expect(alone.env.HL_RATE_WEIGHT_PER_MIN).toBe("75");
    }
    // Each engine keeps its own data directory (its paper wallet and state) and builder code.
    expect(host.env.DATA_DIR).toBeUndefined();
    expect(specs.map((s) => s.env.DATA_DIR)).toEqual([1, 2, 3, 4].map((i) => `/tmp/d/house-${i}`));
    expect(specs[3]!.env.BUILDER_ADDRESS).toBeDefined();
    expect(specs[0]!.env.BUILDER_ADDRESS).toBeUndefined();
  });

  it("reads every house agent's command line, and refuses what it does not understand", () => {
    for (const h of host.hosts!) {
      const a = parseTraderArgs(h.args);
      expect(a.strategy).toBe(h.args[1]);
      expect(a.network).toBe("paper");
      expect(a.tickSeconds).toBe(cfg.houseTick);
    }
    expect(parseTraderArgs(host.hosts![3]!.args)).toMatchObject({
      instrument: "BTCSWP-USDYP",
      params: { base_size: 0.01, max_inventory: 0.1 },
    });
    expect(() => parseTraderArgs(["run", "simple_mm", "--mainnet"])).toThrow(/unsupported option --mainnet/);
    expect(() => parseTraderArgs(["run", "simple_mm", "-p", "x"])).toThrow(/name=number/);
    expect(() => parseTraderArgs(["agent", "serve"])).toThrow(/not an `hl run STRATEGY`/);
  });

  it("restarts an engine's isolated stop at once, a repeat with a growing back-off, at most 30 s", () => {
    expect([1, 2, 3, 4, 5, 6, 9].map(traderRestartDelayMs)).toEqual([
      0, 2000, 4000, 8000, 16000, 30000, 30000,
    ]);
  });

  it("prints the house agents under the process that runs them", () => {
    const table = serviceTable(combined.map((spec) => ({ spec, logPath: "" })));
    expect(table).toContain("one process: house-1, house-2, house-3, house-4");
    expect(table).toContain("house agent: house simple_mm BTCSWP-USDYP");
  });
});

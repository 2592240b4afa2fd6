import { describe, expect, it } from "vitest";
import { HOSTED_SERVICES_ENV, parseHostedSpecs } from "../../../src/services/host/run.ts";
import { combineServices, healthUrls } from "../../../src/services/up/combine.ts";
import { upConfig } from "../../../src/services/up/config.ts";
import { plan } from "../../../src/services/up/plan.ts";
import { serviceTable } from "../../../src/services/up/table.ts";

const cfg = upConfig({ dataDir: "/tmp/d", agentPort: "18080", feedsPort: "18100", simPort: "18900" }, {});

describe("hl up: the public services in one process", () => {
  const split = plan(cfg, { PATH: "/bin" });
  const combined = combineServices(split);
  const host = combined.find((c) => c.name === "services")!;

  it("folds leaderboard, feeds, ISFR, points and MCP into one child; traders and the sim world stay apart", () => {
    expect(combined.map((c) => c.name)).toEqual([
      "sim",
      "agent",
      "house-1",
      "house-2",
      "house-3",
      "house-4",
      "services",
    ]);
    expect(host.args).toEqual(["services", "serve"]);
    expect(host.hosts!.map((h) => h.name)).toEqual(["leaderboard", "feeds", "isfr", "points", "mcp"]);
  });

  it("gives each hosted service exactly the environment and arguments it had as its own process", () => {
    const specs = parseHostedSpecs(host.env[HOSTED_SERVICES_ENV]);
    for (const spec of specs) {
      const alone = split.find((c) => c.name === spec.name)!;
      expect(spec.args).toEqual(alone.args);
      const { [HOSTED_SERVICES_ENV]: _, ...hostEnv } = host.env;
      // One process, one weight budget: the sum of what the services had apart.
      expect({ ...hostEnv, ...spec.env }).toEqual({ ...alone.env, HL_RATE_WEIGHT_PER_MIN: "450" });
    }
    expect(split.filter((c) => host.hosts!.includes(c)).map((c) => c.env.HL_RATE_WEIGHT_PER_MIN)).toEqual(
      Array(5).fill("90"),
    );
    // Settings of one service only do not leak into the others' environment.
    expect(host.env.LEADERBOARD_PORT).toBeUndefined();
    expect(specs.find((s) => s.name === "leaderboard")!.env.LEADERBOARD_PORT).toBe(
      String(cfg.ports.leaderboard),
    );
  });

  it("counts the host healthy only when every hosted service answers its own health URL", () => {
    expect(healthUrls(host)).toEqual(split.filter((c) => host.hosts!.includes(c)).map((c) => c.healthUrl));
    expect(healthUrls(split[0]!)).toEqual([split[0]!.healthUrl]);
  });

  it("prints every hosted service's page in the table, under the process that runs it", () => {
    const table = serviceTable(combined.map((spec) => ({ spec, logPath: "" })));
    expect(table).toContain("one process: leaderboard, feeds, isfr, points, mcp");
    for (const h of host.hosts!) expect(table).toContain(h.url!);
  });

  it("--split and HL_UP_SPLIT=1 keep one process per service", () => {
    expect(upConfig({ split: true }, {}).split).toBe(true);
    expect(upConfig({}, { HL_UP_SPLIT: "1" }).split).toBe(true);
    expect(upConfig({}, {}).split).toBe(false);
  });
});

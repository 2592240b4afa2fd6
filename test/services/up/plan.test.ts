import { describe, expect, it } from "vitest";
import { childArgs, readAgentConfig } from "../../../src/services/agent/config.ts";
import { upConfig } from "../../../src/services/up/config.ts";
import { dashboardLinks, plan } from "../../../src/services/up/plan.ts";

const cfg = upConfig({ dataDir: "/tmp/d", agentPort: "18080", feedsPort: "18100", simPort: "18900" }, {});

describe("hl up plan", () => {
  const children = plan(cfg, { HL_PRIVATE_KEY: "0xsecret", PATH: "/bin" });
  const byName = new Map(children.map((c) => [c.name, c]));

  it("starts the sim world first, then the agent, four house agents and the five services", () => {
    expect(children.map((c) => c.name)).toEqual([
      "sim",
      "agent",
      "house-1",
      "house-2",
      "house-3",
      "house-4",
      "leaderboard",
      "feeds",
      "isfr",
      "points",
      "mcp",
    ]);
  });

  it("pins every child to this sim world with no real key, each trader in its own data dir", () => {
    for (const c of children) {
      expect(c.env.HL_API_URL).toBe("http://127.0.0.1:18900");
      expect(c.env.HL_NETWORK).toBe("paper");
      expect(c.env.HL_PRIVATE_KEY).toBe("");
      expect(c.env.PATH).toBe("/bin");
    }
    const dirs = children.filter((c) => c.walletDir).map((c) => c.env.DATA_DIR);
    expect(dirs).toEqual([
      "/tmp/d/agent",
      "/tmp/d/house-1",
      "/tmp/d/house-2",
      "/tmp/d/house-3",
      "/tmp/d/house-4",
    ]);
    for (const c of children) if (c.walletDir) expect(c.walletDir).toBe(c.env.DATA_DIR);
  });

  it("names each trading child for its alerts, and hands the points page every agent's data dir", () => {
    const traders = children.filter((c) => c.walletDir);
    for (const c of traders) expect(c.env.HL_AGENT_NAME).toBe(c.displayName);
    expect(byName.get("agent")!.env.HL_AGENT_NAME).toBe("WOLF agent");
    expect(byName.get("house-4")!.env.HL_AGENT_NAME).toBe("house simple_mm BTCSWP-USDYP");
    const points = byName.get("points")!;
    expect(JSON.parse(points.env.POINTS_LOCAL_AGENTS!)).toEqual(
      traders.map((c) => ({ name: c.displayName, dir: c.walletDir })),
    );
  });

  it("runs the agent service in WOLF mode with the dashboard links", () => {
    const agent = byName.get("agent")!;
    const agentCfg = readAgentConfig(agent.env);
    expect(agentCfg.mode).toBe("wolf");
    expect(agentCfg.port).toBe(18080);
    expect(agentCfg.links).toEqual(dashboardLinks(cfg));
    // WOLF runs with its default config: the sim's markets are as liquid as the real ones.
    expect(childArgs(agentCfg)).toEqual(expect.arrayContaining(["wolf", "run", "--tick", "5"]));
    expect(childArgs(agentCfg)).not.toContain("--config");
    expect(agent.env.WOLF_CONFIG).toBeUndefined();
  });

  it("runs WOLF with the preset sized for the $10,000 paper wallet, unless WOLF_PRESET names another", () => {
    const agent = byName.get("agent")!;
    expect(agent.env.WOLF_PRESET).toBe("paper_10k");
    const chosen = plan(cfg, { WOLF_PRESET: "conservative" }).find((c) => c.name === "agent")!;
    expect(chosen.env.WOLF_PRESET).toBe("conservative");
  });

  it("the MCP server reads the running agent's data directory", () => {
    expect(byName.get("mcp")!.env.DATA_DIR).toBe("/tmp/d/agent");
  });

  it("RUN_MODE=strategy runs the main agent in strategy mode with STRATEGY and INSTRUMENT", () => {
    const agent = plan(cfg, { RUN_MODE: "strategy", STRATEGY: "grid_mm", INSTRUMENT: "SOL-PERP" }).find(
      (c) => c.name === "agent",
    )!;
    const agentCfg = readAgentConfig(agent.env);
    expect(agentCfg.mode).toBe("strategy");
    expect(childArgs(agentCfg)).toEqual(
      expect.arrayContaining([
        "run",
        "grid_mm",
        "-i",
        "SOL-PERP",
        "--tick",
        "5",
        "--data-dir",
        "/tmp/d/agent",
      ]),
    );
    expect(agent.displayName).toBe("agent grid_mm SOL");
    expect(() => plan(cfg, { RUN_MODE: "nope" })).toThrow(/RUN_MODE/);
  });

  it("points the leaderboard's paper board and the points service at the sim world and the BTCSWP feed", () => {
    const lb = byName.get("leaderboard")!;
    expect(lb.env.HL_API_URL_PAPER).toBe("http://127.0.0.1:18900");
    const points = byName.get("points")!;
    expect(points.env.BTCSWP_FEED_URL).toBe("http://127.0.0.1:18101");
    expect(points.env.POINTS_STATS_URL).toBe("http://127.0.0.1:18900/stats");
    expect(byName.get("isfr")!.env.YIELDS_API_URL).toBe("http://127.0.0.1:18900/yields");
    expect(byName.get("mcp")!.args).toEqual(expect.arrayContaining(["--transport", "http"]));
  });

  it("prints the leaderboard link that opens the paper board, where hl up's agents are", () => {
    expect(byName.get("leaderboard")!.url).toBe("http://127.0.0.1:8090/?network=paper");
  });

  it("stops traders first and the sim world last", () => {
    expect(byName.get("sim")!.stopRound).toBe(2);
    expect(children.filter((c) => c.walletDir).every((c) => c.stopRound === 0)).toBe(true);
    expect(byName.get("feeds")!.stopRound).toBe(1);
  });
});

describe("hl up plan: the weight broker", () => {
  it("hands every child the broker's socket, keeping each child's share as its fallback", () => {
    const children = plan(cfg, { PATH: "/bin" }, { weightBroker: "/tmp/d/weight-broker.sock" });
    for (const c of children) expect(c.env.HL_WEIGHT_BROKER).toBe("/tmp/d/weight-broker.sock");
    expect(children.find((c) => c.name === "agent")!.env.HL_RATE_WEIGHT_PER_MIN).toBe("350");
  });

  it("gives no broker when the user set each process's budget, nor one inherited from the shell", () => {
    const own = plan(cfg, { HL_RATE_WEIGHT_PER_MIN: "900" }, { weightBroker: "/tmp/d/weight-broker.sock" });
    for (const c of own) expect(c.env.HL_WEIGHT_BROKER).toBeUndefined();
    for (const c of own.filter((c) => c.name !== "sim")) expect(c.env.HL_RATE_WEIGHT_PER_MIN).toBe("900");
    const stray = plan(cfg, { HL_WEIGHT_BROKER: "/elsewhere.sock" });
    for (const c of stray) expect(c.env.HL_WEIGHT_BROKER).toBeUndefined();
  });
});

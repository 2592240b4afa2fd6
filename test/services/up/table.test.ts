import { describe, expect, it } from "vitest";
import { combineServices, combineTraders } from "../../../src/services/up/combine.ts";
import { upConfig } from "../../../src/services/up/config.ts";
import { plan } from "../../../src/services/up/plan.ts";
import { serviceTable } from "../../../src/services/up/table.ts";

describe("hl up's table", () => {
  it("lists the agent's dashboard right after the sim world, whatever order the children started in", () => {
    const cfg = upConfig({ dataDir: "/tmp/d", agentPort: "18080", feedsPort: "18100", simPort: "18900" }, {});
    const [sim, agent, traders, services] = combineServices(combineTraders(plan(cfg, { PATH: "/bin" })));
    // Traders (the agent among them) start after the services: they register on the leaderboard first.
    const started = [sim!, services!, agent!, traders!];
    const names = serviceTable(started.map((spec) => ({ spec, logPath: "" })))
      .split("\n")
      .map((l) => l.trim().split(/\s+/)[0]);
    expect(names.slice(0, 3)).toEqual(["sim", "agent", "services"]);
  });
});

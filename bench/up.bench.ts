import { rmSync } from "node:fs";
import { getJson, type RunningUp, startUp, stopUp, until } from "../test/e2e/up-helpers.ts";
import type { BenchReporter } from "./harness.ts";

/**
 * `hl up` from cold (fresh data dir) to the whole platform working: every service healthy, the WOLF
 * agent's first tick, all four agents on the leaderboard; then Ctrl-C to a clean exit.
 * Target: a newcomer has everything running within a minute.
 */
export default async function (r: BenchReporter): Promise<void> {
  const t0 = Date.now();
  let up: RunningUp | undefined;
  try {
    up = await startUp();
    const running = up;
    const deadline = t0 + 120_000;
    await until(
      "agent /health",
      async () => (await getJson(`${running.url("agent")}/health`)) !== undefined,
      deadline,
    );
    await until("ISFR", () => getJson(`${running.url("isfr")}/isfr/health`), deadline);
    await until("points", () => getJson(`${running.url("points")}/points/market-config`), deadline);
    await until("MCP", () => getJson(`${running.url("mcp")}/health`), deadline);
    r.figure({ name: "hl up: every service answering", value: (Date.now() - t0) / 1000, unit: "s" });
    await until(
      "first WOLF tick",
      async () =>
        ((await getJson<{ tick_count?: number }>(`${running.url("agent")}/api/status`))?.tick_count ?? 0) >=
        1,
      deadline,
    );
    await until(
      "five agents on the paper leaderboard",
      async () =>
        (
          await getJson<{ total_agents: number }>(
            `${running.url("leaderboard")}/api/leaderboard?network=paper`,
          )
        )?.total_agents === 5,
      deadline,
    );
    r.figure({
      name: "hl up: WOLF ticking and 5 agents ranked",
      value: (Date.now() - t0) / 1000,
      unit: "s",
      target: { op: "<", value: 60 },
    });
    const t1 = Date.now();
    await stopUp(running);
    r.figure({ name: "hl up: Ctrl-C to clean exit", value: (Date.now() - t1) / 1000, unit: "s" });
  } finally {
    if (up) {
      await stopUp(up);
      rmSync(up.dataDir, { recursive: true, force: true });
    }
  }
}

import { rmSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { descendants, getJson, hlCommands, type RunningUp, startUp, stopUp, until } from "./up-helpers.ts";

/**
 * `hl up --split`: each public service in its own process, as before the shared one (the default
 * shared process is checked by up.test.ts). Every service still answers its own health URL.
 */

let up: RunningUp | undefined;

afterAll(async () => {
  if (up) {
    await stopUp(up);
    rmSync(up.dataDir, { recursive: true, force: true });
  }
});

describe("hl up --split", () => {
  it("runs leaderboard, feeds, ISFR, points and MCP as five processes", { timeout: 60_000 }, async () => {
    // The split is this file's subject. Within the per-IP weight limit, five service processes plus the
    // agents take most of a minute to come up (as live); test/e2e/up.test.ts runs hl up with the limit on.
    up = await startUp(["--split"], { HL_SIM_LIMITS: "off", HL_RATE_WEIGHT_PER_MIN: "120000" });
    const running = up;
    const url = running.url;
    const deadline = Date.now() + 45_000;
    await until("leaderboard /health", () => getJson(`${url("leaderboard")}/health`), deadline);
    await until(
      "BTCSWP feed /healthz",
      () => getJson(`http://127.0.0.1:${running.ports.feeds + 1}/healthz`),
      deadline,
    );
    await until("ISFR /health", () => getJson(`${url("isfr")}/isfr/health`), deadline);
    await until("points", () => getJson(`${url("points")}/points/market-config`), deadline);
    await until("MCP /health", () => getJson(`${url("mcp")}/health`), deadline);

    const commands = hlCommands(descendants(running.child.pid!));
    for (const service of ["leaderboard", "feeds", "isfr", "points", "mcp"])
      expect(
        commands.filter((c) => c === `${service} serve`),
        service,
      ).toHaveLength(1);
    expect(commands).not.toContain("services serve");
    expect(running.output()).not.toContain("one process:");
    expect(await stopUp(running)).toBe(0);
  });
});

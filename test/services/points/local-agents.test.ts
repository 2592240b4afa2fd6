import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listen } from "../../../src/http/service.ts";
import { pointsConfig } from "../../../src/services/points/config.ts";
import { createPointsApp } from "../../../src/services/points/http.ts";
import { localAgentWallets } from "../../../src/services/points/local-agents.ts";
import type { PointsService } from "../../../src/services/points/service.ts";

const WOLF = "0x00000000000000000000000000000000000000a1";
const HOUSE = "0x00000000000000000000000000000000000000b2";

/** An agent's data directory as `hl up` leaves it once the leaderboard registered its wallet. */
function agentDir(root: string, name: string, registration?: object): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  if (registration) writeFileSync(join(dir, "leaderboard.json"), JSON.stringify(registration));
  return dir;
}

/** The points page's list of this machine's agents (`hl up`), over loopback HTTP. */
describe("points: the local agents' wallets", () => {
  const root = mkdtempSync(join(tmpdir(), "hl-points-agents-"));
  const agents = [
    {
      name: "WOLF agent",
      dir: agentDir(root, "agent", { network: "paper", address: WOLF, initial_account_value: "10000" }),
    },
    {
      name: "house simple_mm ETH",
      dir: agentDir(root, "house-1", { network: "paper", address: HOUSE, initial_account_value: "10000" }),
    },
    // Not registered yet (its wallet may not exist on the exchange): left out.
    { name: "house avellaneda_mm BTC", dir: agentDir(root, "house-2") },
    // Registered on another network: not an address of this one.
    {
      name: "testnet agent",
      dir: agentDir(root, "other", { network: "testnet", address: WOLF, initial_account_value: "1" }),
    },
  ];
  const env = { POINTS_LOCAL_AGENTS: JSON.stringify(agents), DATA_DIR: root };
  const cfg = pointsConfig("paper", "http://127.0.0.1:1", env);
  const servers: { close(): Promise<void> }[] = [];
  let withAgents = "";
  let without = "";
  beforeAll(async () => {
    const service = {} as unknown as PointsService; // the list asks nothing of the scoring
    const a = createPointsApp(service, {
      localAgents: () => localAgentWallets(cfg.localAgents ?? [], "paper"),
    }).app;
    const b = createPointsApp(service).app;
    withAgents = `http://127.0.0.1:${await listen(a, 0)}`;
    without = `http://127.0.0.1:${await listen(b, 0)}`;
    servers.push(a, b);
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });

  it("lists the registered paper wallets of POINTS_LOCAL_AGENTS, and none that is not on this network", async () => {
    const res = await fetch(`${withAgents}/points/local-agents`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      agents: [
        { name: "WOLF agent", address: WOLF },
        { name: "house simple_mm ETH", address: HOUSE },
      ],
    });
  });

  it("a wallet registered later appears without a restart", async () => {
    agentDir(root, "house-2", {
      network: "paper",
      address: HOUSE.replace("b2", "c3"),
      initial_account_value: "1",
    });
    const body = (await (await fetch(`${withAgents}/points/local-agents`)).json()) as { agents: unknown[] };
    expect(body.agents).toHaveLength(3);
  });

  it("outside hl up (no local agents) the list is empty and the page offers none", async () => {
    expect(await (await fetch(`${without}/points/local-agents`)).json()).toEqual({ agents: [] });
    expect(pointsConfig("paper", "http://127.0.0.1:1", {}).localAgents).toEqual([]);
    const page = await (await fetch(`${without}/points/points.js`)).text();
    expect(page).toContain("/points/local-agents");
  });

  it("a malformed POINTS_LOCAL_AGENTS is refused in one line", () => {
    expect(() => pointsConfig("paper", "http://127.0.0.1:1", { POINTS_LOCAL_AGENTS: "[{" })).toThrow(
      /POINTS_LOCAL_AGENTS must be JSON/,
    );
  });
});

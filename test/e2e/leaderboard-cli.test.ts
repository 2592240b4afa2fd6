import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SimWorld, startSimWorld } from "../../src/sim/world.ts";
import { type HlOutcome, runHl } from "../support/hl-process.ts";

/** `hl leaderboard register` and `list` as real processes against a sim world standing in for testnet. */

const ALICE = "0x1111111111111111111111111111111111111111";
const BOB = "0x2222222222222222222222222222222222222222";

let sim: SimWorld;
let dir: string;

function env(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DATA_DIR: dir,
    LEADERBOARD_DB: join(dir, "leaderboard.db"),
    HL_API_URL_TESTNET: sim.url,
    HL_API_URL_MAINNET: sim.url,
    HL_API_URL: "",
    HL_PRIVATE_KEY: "",
  };
}

function hl(...args: string[]): Promise<HlOutcome> {
  return runHl(args, env());
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "lb-cli-"));
  sim = await startSimWorld({ seed: 5 });
});

afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("hl leaderboard CLI", () => {
  it("register then list prints the ranking", async () => {
    const [a, b] = await Promise.all([
      hl("leaderboard", "register", ALICE, "--name", "alice", "--network", "testnet"),
      hl("leaderboard", "register", BOB, "--name", "bob", "--network", "testnet", "--json"),
    ]);
    expect(a.code, a.stderr).toBe(0);
    expect(a.stdout).toContain(`registered ${ALICE} on testnet (initial account value 10000.00)`);
    expect(b.code, b.stderr).toBe(0);
    expect(JSON.parse(b.stdout)).toEqual({
      registered: true,
      new: true,
      address: BOB,
      network: "testnet",
      initial_account_value: 10000,
    });

    await fetch(`${sim.url}/sim/deposit`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ user: BOB, amount: "250" }),
    });

    const list = await hl("leaderboard", "list", "--network", "testnet");
    expect(list.code, list.stderr).toBe(0);
    const lines = list.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^#\s+name\s+address\s+pnl\s+pnl_adjusted\s+account_value\s+positions$/);
    expect(lines[1]).toMatch(new RegExp(`^1\\s+bob\\s+${BOB}\\s+250\\.00\\s+0\\.00\\s+10250\\.00\\s+0$`));
    expect(lines[2]).toMatch(new RegExp(`^2\\s+alice\\s+${ALICE}\\s+0\\.00\\s+0\\.00\\s+10000\\.00\\s+0$`));

    const [again, empty, cached] = await Promise.all([
      hl("leaderboard", "register", ALICE, "--name", "renamed"),
      hl("leaderboard", "list", "--network", "mainnet", "--cached"),
      hl("leaderboard", "list", "--cached", "--json"),
    ]);
    expect(again.stdout).toContain(`already registered ${ALICE}`);
    expect(empty.stdout).toContain("no agents registered on mainnet");
    const json = JSON.parse(cached.stdout) as {
      agents: { display_name: string; pnl: number }[];
      total_agents: number;
    };
    expect(json.total_agents).toBe(2);
    expect(json.agents.map((x) => [x.display_name, x.pnl])).toEqual([
      ["bob", 250],
      ["alice", 0],
    ]);
  }, 120_000); // CLI processes, each starting the TypeScript loader

  it("refuses a bad address with the contract's message and exit code 1", async () => {
    const [r, net] = await Promise.all([
      hl("leaderboard", "register", "0x123", "--name", "x"),
      hl("leaderboard", "list", "--network", "devnet"),
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe("error: Invalid Ethereum address (expected 0x + 40 hex chars)");
    expect(net.code).toBe(1);
    expect(net.stderr).toMatch(/--network/);
  }, 60_000);
});

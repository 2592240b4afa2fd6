import { type ChildProcess, spawn } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SimWorld, startSimWorld } from "../../src/sim/world.ts";
import { getJson, until } from "./up-helpers.ts";

/**
 * A predecessor deployment's DATA_DIR (its wolf/state.json, trades.jsonl and cli/state.db) under
 * `hl agent serve` in WOLF mode: the state is migrated on the first run with the original kept
 * beside it, the trading child runs instead of crash-looping, and the service serves it.
 */

const HL = join(import.meta.dirname, "../../bin/hl.mjs");
const FIXTURE = join(import.meta.dirname, "../fixtures/predecessor-data");
let world: SimWorld;
let dataDir: string;
let agent: ChildProcess | undefined;
let log = "";

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", () => r()));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

beforeAll(async () => {
  world = await startSimWorld({ port: 0, seed: 9, houseMakers: false });
  dataDir = mkdtempSync(join(tmpdir(), "predecessor-e2e-"));
  cpSync(FIXTURE, dataDir, { recursive: true });
});

afterAll(async () => {
  if (agent && agent.exitCode === null) {
    const exited = new Promise((r) => agent!.once("exit", r));
    agent.kill("SIGTERM");
    await exited;
  }
  await world?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("a predecessor DATA_DIR under the agent service", () => {
  it("is migrated on the first run (original kept), traded from, and served", {
    timeout: 60_000,
  }, async () => {
    const port = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      RUN_MODE: "wolf",
      DATA_DIR: dataDir,
      HL_API_URL: world.url,
      HL_NETWORK: "paper",
      HL_PRIVATE_KEY: "",
      WOLF_TICK: "1",
      HL_RATE_WEIGHT_PER_MIN: "100000",
    };
    agent = spawn(process.execPath, [HL, "agent", "serve"], { env, stdio: ["ignore", "pipe", "pipe"] });
    agent.stdout!.on("data", (d) => (log += d));
    agent.stderr!.on("data", (d) => (log += d));
    const url = `http://127.0.0.1:${port}`;
    const status = await until(
      "WOLF ticking past the predecessor's tick 1437",
      async () => {
        const s = await getJson<{ status: string; tick_count?: number; engine?: string }>(
          `${url}/api/status`,
        );
        return s?.status === "running" && (s.tick_count ?? 0) > 1437 ? s : undefined;
      },
      Date.now() + 45_000,
    );
    expect(status.engine, log).toBe("wolf");
    expect(log).not.toMatch(/is not a WOLF state/);

    // The original is kept beside, byte for byte; state.json is now this project's format.
    expect(readFileSync(join(dataDir, "wolf", "state.predecessor.json"))).toEqual(
      readFileSync(join(FIXTURE, "wolf", "state.json")),
    );
    expect(JSON.parse(readFileSync(join(dataDir, "wolf", "state.json"), "utf8")).version).toBe(1);

    // Its trades are served, and the restored slots were reconciled with the exchange (no such
    // positions on this sim world: each closed into the journal).
    const trades = (await getJson<{ trades: { oid: string }[] }>(`${url}/api/trades?limit=100`))!.trades;
    expect(trades.map((t) => t.oid)).toContain("0xa1b2c3d4");
    const text = await (await fetch(`${url}/status`)).text();
    expect(text).toContain("WOLF");
  });
});

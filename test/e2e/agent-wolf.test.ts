import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { loadOrCreatePaperWallet } from "../../src/exchange/index.ts";
import { portIsFree } from "../../src/services/up/ports.ts";
import { type SimWorld, startSimWorld } from "../../src/sim/world.ts";
import { loadWolfState } from "../../src/wolf/state.ts";

/**
 * A new user's `hl agent serve` in WOLF mode on paper, with WOLF's default config and nothing set but
 * the sim world's URL (run at --speed 10): a position opens within 60 s of wall time.
 */

const HL = join(import.meta.dirname, "../../bin/hl.mjs");
const dir = mkdtempSync(join(tmpdir(), "agent-wolf-"));
let sim: SimWorld | undefined;
let agent: ChildProcess | undefined;

afterAll(async () => {
  if (agent && agent.exitCode === null) {
    agent.kill("SIGTERM");
    await new Promise((r) => agent!.once("exit", r));
  }
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 40_000);
    if (await portIsFree(port, "127.0.0.1")) return port;
  }
}

it("opens a position within 60 s with the default config", { timeout: 90_000 }, async () => {
  // Needs the exchange's per-IP weight limit off: a sim at 10× speed with WOLF ticking fast spend more than
  // one IP's 1200 a minute. The per-address limit stays on.
  sim = await startSimWorld({ ipWeightLimit: false, seed: 1, speed: 10 });
  const port = await freePort();
  const env: Record<string, string | undefined> = {
    ...process.env,
    PORT: String(port),
    HOST: "127.0.0.1",
    RUN_MODE: "wolf",
    HL_NETWORK: "paper",
    HL_API_URL: sim.url,
    HL_PRIVATE_KEY: "",
    DATA_DIR: dir,
    HL_AGENT_HOME: join(dir, "home"),
  };
  for (const k of ["WOLF_CONFIG", "WOLF_TICK", "TICK_INTERVAL", "WOLF_BUDGET", "WOLF_SLOTS", "WOLF_LEVERAGE"])
    delete env[k];
  const started = Date.now();
  agent = spawn(process.execPath, [HL, "agent", "serve"], { env, stdio: "ignore" });
  let opened: string | undefined;
  while (!opened && Date.now() - started < 60_000) {
    await new Promise((r) => setTimeout(r, 500));
    try {
      const r = loadWolfState(dir);
      const slot = r.kind === "ok" ? r.state.slots.find((s) => s.status === "active") : undefined;
      if (slot) opened = `${slot.side} ${slot.instrument}`;
    } catch {
      // mid-rename
    }
  }
  expect(opened, "no WOLF position within 60 s").toBeDefined();
  // The exchange holds it for the agent's paper wallet.
  const user = loadOrCreatePaperWallet({ DATA_DIR: dir }).address;
  const positions = sim.venue.info({ type: "clearinghouseState", user }) as {
    assetPositions: unknown[];
  };
  expect(positions.assetPositions.length).toBeGreaterThan(0);
});

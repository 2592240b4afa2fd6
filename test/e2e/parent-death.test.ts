import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { portIsFree } from "../../src/services/up/ports.ts";
import { type SimWorld, startSimWorld } from "../../src/sim/world.ts";
import { descendants, getJson, HL, isAlive, survivors, until } from "./up-helpers.ts";

/**
 * A supervisor killed without a chance to clean up (SIGKILL, OOM killer) must not leave its trading
 * child running unsupervised with real orders: the child notices its parent is gone and stops itself.
 */

let sim: SimWorld | undefined;
const dir = mkdtempSync(join(tmpdir(), "hl-parent-death-"));
const leftovers: number[] = [];

afterAll(async () => {
  for (const pid of leftovers.filter(isAlive)) process.kill(pid, "SIGKILL");
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

function describeProcess(pid: number): string {
  try {
    return execFileSync("ps", ["-o", "pid=,ppid=,stat=,etime=,args=", "-p", String(pid)], {
      encoding: "utf8",
    }).trim();
  } catch {
    return String(pid);
  }
}

async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 40_000);
    if (await portIsFree(port, "127.0.0.1")) return port;
  }
}

describe("parent death", () => {
  it("SIGKILL of `hl agent serve` stops its trading child and the child's helpers", {
    timeout: 90_000,
  }, async () => {
    sim = await startSimWorld({ seed: 9 });
    const port = await freePort();
    const agent = spawn(process.execPath, [HL, "agent", "serve"], {
      env: {
        ...process.env,
        PORT: String(port),
        HOST: "127.0.0.1",
        RUN_MODE: "strategy",
        STRATEGY: "simple_mm",
        INSTRUMENT: "ETH-PERP",
        TICK_INTERVAL: "1",
        HL_NETWORK: "paper",
        HL_API_URL: sim.url,
        HL_PRIVATE_KEY: "",
        DATA_DIR: dir,
        HL_AGENT_HOME: join(dir, "home"),
      },
      stdio: "ignore",
    });
    leftovers.push(agent.pid!);
    const health = await until(
      "the trading child",
      async () => {
        const h = await getJson<{ alive: boolean; pid: number | null }>(`http://127.0.0.1:${port}/health`);
        return h?.alive && h.pid ? h : undefined;
      },
      Date.now() + 60_000,
    );
    const child = health.pid!;
    const tree = [child, ...descendants(child)];
    leftovers.push(...tree);
    expect(isAlive(child)).toBe(true);

    agent.kill("SIGKILL");
    const left = await survivors(tree, 20_000);
    // Name what survived, so a failure says which process it was.
    expect(left.map(describeProcess)).toEqual([]);
  });
});

import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { portIsFree } from "../../src/services/up/ports.ts";
import { type SimWorld, startSimWorld } from "../../src/sim/world.ts";
import { descendants, getJson, HL, isAlive, survivors, until } from "./up-helpers.ts";

/**
 * A supervisor killed without a chance to clean up (SIGKILL, OOM killer) must not leave its trading
 * child running unsupervised with real orders: the child notices its parent is gone and stops itself.
 * The kill lands whenever /health first shows the child, sometimes while the child is still starting;
 * test/runtime/orphan-deadline.test.ts kills the parent before the child's first line every time.
 */

let sim: SimWorld | undefined;
const dir = mkdtempSync(join(tmpdir(), "hl-parent-death-"));
const leftovers: number[] = [];

afterAll(async () => {
  for (const pid of leftovers.filter(isAlive)) process.kill(pid, "SIGKILL");
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * pid, state, ppid, age and full command line from /proc: enough to name a survivor after the fact
 * (an age under a second or so at the kill means the parent died while the child was starting).
 */
function describeProcess(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // Field 22 of stat (20 after the name): start time in clock ticks (100 a second on Linux) since boot.
    const ageS = Number(readFileSync("/proc/uptime", "utf8").split(" ")[0]) - Number(fields[19]) / 100;
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean).join(" ");
    return `pid ${pid} state ${fields[0]} ppid ${fields[1]} age ${ageS.toFixed(2)} s: ${cmdline}`;
  } catch {
    return `pid ${pid} (gone)`;
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
    // The tree as it was when the parent died, for a failure to be read against.
    const before = tree.map(describeProcess);
    expect(isAlive(child)).toBe(true);

    agent.kill("SIGKILL");
    const left = await survivors(tree, 20_000);
    // Name what survived (pid, state, ppid, command line), so a failure says which process it was.
    expect(left.map(describeProcess), `tree when the parent died:\n${before.join("\n")}`).toEqual([]);
  });
});

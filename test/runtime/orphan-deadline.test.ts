import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { HL, isAlive, survivors, until } from "../e2e/up-helpers.ts";

/**
 * A process whose supervisor died must stop even when its graceful stop hangs (a stuck request, a
 * handle that keeps the loop alive): the launcher gives the command a bounded grace, then ends its
 * whole process group. The hang is simulated by a preload that leaves an interval running. Nor may a
 * command start at all when its supervisor died before the command's first line ran.
 */

const RUN_TS = join(import.meta.dirname, "../../bin/run-ts.mjs");
const SPAWN_THEN_DIE = join(import.meta.dirname, "../fixtures/spawn-then-die.ts");
const dir = mkdtempSync(join(tmpdir(), "hl-orphan-"));
const leftovers: number[] = [];

afterAll(() => {
  for (const pid of leftovers.filter(isAlive)) process.kill(pid, "SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

describe("orphaned command", () => {
  it("exits within the orphan grace although a lingering handle keeps its event loop alive", {
    timeout: 40_000,
  }, async () => {
    const lingeringHandle = `data:text/javascript,setInterval(()=>{},1e6);`;
    const parentCode = `
      const { spawn } = require("node:child_process");
      const child = spawn(process.execPath, ["--import", ${JSON.stringify(lingeringHandle)}, ${JSON.stringify(HL)}, "leaderboard", "serve", "--port", "0"], {
        stdio: ["ignore", "ignore", "ignore", "ipc"], detached: true,
        env: { ...process.env, DATA_DIR: ${JSON.stringify(dir)}, HL_ORPHAN_GRACE_MS: "2000" },
      });
      process.stdout.write(String(child.pid) + "\\n");
      setInterval(() => {}, 1e6);
    `;
    const parent = spawn(process.execPath, ["-e", parentCode], { stdio: ["ignore", "pipe", "inherit"] });
    leftovers.push(parent.pid!);
    let out = "";
    parent.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
    });
    const childPid = await until(
      "the child's pid",
      async () => Number(out.trim()) || undefined,
      Date.now() + 10_000,
    );
    leftovers.push(childPid);
    // Let the command get going (its sources load under tsx), then kill the parent outright.
    await new Promise((r) => setTimeout(r, 3_000));
    expect(isAlive(childPid)).toBe(true);
    parent.kill("SIGKILL");
    expect(await survivors([childPid], 10_000)).toEqual([]);
  });

  it("does not start when its supervisor was killed before the command's first line ran", {
    timeout: 30_000,
  }, async () => {
    // The supervisor (the agent service's, and the MCP server's job runner) dies right after spawning.
    const parent = spawn(process.execPath, [RUN_TS, SPAWN_THEN_DIE, "leaderboard", "serve", "--port", "0"], {
      env: { ...process.env, DATA_DIR: dir },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    parent.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
    });
    await new Promise((resolve) => parent.once("exit", resolve));
    const children = out.trim().split(/\s+/).map(Number).filter(Boolean);
    leftovers.push(...children);
    expect(children).toHaveLength(2);
    // Before the fix the Supervisor's child (output to /dev/null, as under `hl agent serve` started
    // with no terminal) ran on with no supervisor; the job runner's, whose output is a pipe, stopped
    // only when a write to it failed.
    expect(await survivors(children, 5_000)).toEqual([]);
  });
});

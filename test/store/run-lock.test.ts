import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { UserError } from "../../src/core/errors.ts";
import { acquireRunLock } from "../../src/store/run-lock.ts";
import { startTogether } from "../fixtures/start-together.ts";

const HOLDER = join(import.meta.dirname, "../fixtures/hold-run-lock.mjs");
const SUPERVISOR = join(import.meta.dirname, "../fixtures/supervise-lock-holder.mjs");
const root = mkdtempSync(join(tmpdir(), "run-lock-"));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
  rmSync(root, { recursive: true, force: true });
});

/** Start a holder process; resolves with it and its first stdout line. */
function holder(dir: string): Promise<{ child: ChildProcess; line: string }> {
  const child = spawn(process.execPath, [HOLDER, dir, "trading"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("\n")) resolve({ child, line: out.split("\n")[0]! });
    });
    child.once("exit", (code) => reject(new Error(`holder exited (${code}) before reporting`)));
  });
}

const exited = (c: ChildProcess) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once("exit", r)));

describe("run lock", () => {
  it("one holder per directory; released, it can be taken again", () => {
    const dir = join(root, "same");
    const lock = acquireRunLock(dir, "trading", "hl run simple_mm");
    expect(JSON.parse(readFileSync(lock.path, "utf8"))).toMatchObject({
      pid: process.pid,
      command: "hl run simple_mm",
    });
    expect(() => acquireRunLock(dir, "trading", "hl run grid_mm")).toThrow(UserError);
    expect(() => acquireRunLock(dir, "trading", "x")).toThrow(
      new RegExp(
        `^hl run simple_mm \\(pid ${process.pid}\\) is already trading from ${dir} since .*; stop it first$`,
      ),
    );
    expect(acquireRunLock(join(root, "other"), "trading", "x").path).not.toBe(lock.path);
    lock.release();
    expect(existsSync(lock.path)).toBe(false);
    acquireRunLock(dir, "trading", "again").release();
  });

  it("a lock left by a dead process, or by an older process under a reused pid, is taken over", () => {
    const dir = join(root, "stale");
    const path = join(dir, "trading.lock");
    acquireRunLock(dir, "trading", "x").release();
    // A pid far above Linux's pid_max: no such process.
    writeFileSync(path, JSON.stringify({ pid: 4_194_999, start: "1", command: "hl run", since: "then" }));
    acquireRunLock(dir, "trading", "after a crash").release();
    // Our own pid, but a start time that is not ours: the pid was reused.
    writeFileSync(path, JSON.stringify({ pid: process.pid, start: "1", command: "hl run", since: "then" }));
    acquireRunLock(dir, "trading", "after a reboot").release();
    writeFileSync(path, "{ half-writ");
    acquireRunLock(dir, "trading", "over garbage").release();
  });

  it("a paused trader left behind by a supervisor that was killed is woken to stop itself, and its lock taken", {
    timeout: 30_000,
  }, async () => {
    const dir = join(root, "orphan");
    const supervisor = spawn(process.execPath, [SUPERVISOR, dir, "trading"], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    children.push(supervisor);
    const pid = await new Promise<number>((resolve, reject) => {
      let out = "";
      supervisor.stdout!.on("data", (d: Buffer) => {
        out += d.toString();
        if (out.includes("\n")) resolve(Number(out.trim()));
      });
      supervisor.once("exit", (code) => reject(new Error(`supervisor exited (${code}) before reporting`)));
    });
    // Paused as `hl agent serve` pauses it (the whole group), then the service is killed outright.
    process.kill(-pid, "SIGSTOP");
    supervisor.kill("SIGKILL");
    await exited(supervisor);
    try {
      const lock = acquireRunLock(dir, "trading", "restarted service");
      // Gone (a zombie at most, if nothing reaps orphans here).
      expect(
        existsSync(`/proc/${pid}/stat`) ? readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]![0] : "Z",
      ).toBe("Z");
      lock.release();
    } finally {
      try {
        process.kill(-pid, "SIGKILL");
      } catch {
        // gone, as it should be
      }
    }
  });

  it("a trader paused by hand (no supervisor named) is left as it is: refused, with how to resume it", {
    timeout: 30_000,
  }, async () => {
    const dir = join(root, "paused-by-hand");
    const { child, line } = await holder(dir);
    expect(line).toBe("held");
    child.kill("SIGSTOP");
    expect(() => acquireRunLock(dir, "trading", "second")).toThrow("(it is stopped: SIGCONT it, or stop it)");
    child.kill("SIGKILL");
    await exited(child);
  });

  it("across processes: refused while the holder lives, taken once it is SIGKILLed", {
    timeout: 60_000,
  }, async () => {
    const dir = join(root, "cross");
    const { child, line } = await holder(dir);
    expect(line).toBe("held");
    expect(() => acquireRunLock(dir, "trading", "second")).toThrow(`test holder (pid ${child.pid})`);
    child.kill("SIGKILL");
    await exited(child);
    acquireRunLock(dir, "trading", "second").release();
  });

  it("two processes racing for one stale lock: exactly one wins", { timeout: 60_000 }, async () => {
    const dir = join(root, "race");
    acquireRunLock(dir, "trading", "x").release();
    writeFileSync(
      join(dir, "trading.lock"),
      JSON.stringify({ pid: 4_194_999, start: "1", command: "dead", since: "then" }),
    );
    const outputs = await startTogether(HOLDER, [dir, "trading", "--race"], 2, {
      settled: (o) => o.includes("\n"),
    });
    const lines = outputs.map((o) => o.trim()).sort();
    expect(lines[0]).toBe("held");
    expect(lines[1]).toMatch(/^refused: test holder \(pid \d+\) is already trading/);
  });
});

import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { HL_BIN } from "../support/hl-process.ts";

/** `hl … | head`: the reader takes a few lines and goes away; the command must end at once, status 0. */
const roots: string[] = [];
afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const port = (srv.address() as { port: number }).port;
  await new Promise((r) => srv.close(r));
  return port;
}

interface Ended {
  code: number;
  elapsedMs: number;
  stderr: string;
}

/** `bash -c 'hl ARGS | head -n LINES'`: a real pipe, as a shell makes it; gives hl's own exit status. */
async function headOf(args: readonly string[], lines: number, root: string): Promise<Ended> {
  const env = {
    ...process.env,
    DATA_DIR: join(root, "data"),
    HL_AGENT_HOME: join(root, "home"),
    SIM_PORT: String(await freePort()),
    HL_API_URL: "",
    HL_NETWORK: "",
    HL_PRIVATE_KEY: "",
    HL_KEYSTORE_ADDRESS: "",
  };
  const quoted = [process.execPath, HL_BIN, ...args].map((a) => `'${a}'`).join(" ");
  const script = `${quoted} 2>"$0" | head -n ${lines} >/dev/null; echo "\${PIPESTATUS[0]}"`;
  const errFile = join(root, "stderr.txt");
  const started = Date.now();
  const child = spawn("bash", ["-c", script, errFile], {
    env,
    cwd: root,
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.on("data", (d: Buffer) => {
    out += d.toString();
  });
  // A command that never notices the closed pipe would run for ever: end it, and fail on the time.
  const killer = setTimeout(() => spawn("pkill", ["-KILL", "-P", String(child.pid)]), 30_000);
  await new Promise((r) => child.once("exit", r));
  clearTimeout(killer);
  const stderr = existsSync(errFile) ? readFileSync(errFile, "utf8") : "";
  return { code: Number(out.trim()), elapsedMs: Date.now() - started, stderr };
}

describe("hl … | head", () => {
  it("hl run on paper ends at once with status 0, its state and wallet under --data-dir, when its reader goes away", async () => {
    const root = mkdtempSync(join(tmpdir(), "hl-pipe-"));
    roots.push(root);
    const dir = join(root, "elsewhere");
    const args = [
      "run",
      "simple_mm",
      "-i",
      "ETH-PERP",
      "--network",
      "paper",
      "--tick",
      "0.5",
      "--data-dir",
      dir,
    ];
    const r = await headOf(args, 5, root);
    expect(r.code).toBe(0);
    expect(r.elapsedMs).toBeLessThan(20_000);
    // --data-dir is the whole data root: state and the paper wallet both live under it.
    expect(existsSync(join(dir, "cli", "state.db"))).toBe(true);
    expect(existsSync(join(dir, "paper", "key.json"))).toBe(true);
    expect(existsSync(join(root, "data"))).toBe(false);
  }, 60_000);

  it("hl status --watch ends at its next refresh with status 0 when its reader goes away", async () => {
    const root = mkdtempSync(join(tmpdir(), "hl-pipe-"));
    roots.push(root);
    const r = await headOf(["status", "--watch", "--interval", "0.5"], 1, root);
    expect(r.code).toBe(0);
    expect(r.elapsedMs).toBeLessThan(15_000);
    expect(r.stderr).not.toContain("EPIPE");
  }, 60_000);
});

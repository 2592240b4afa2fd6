import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SimWorld, startSimWorld } from "../../src/sim/world.ts";
import { loadWolfState, statePath, type WolfState } from "../../src/wolf/state.ts";

/**
 * `hl wolf run` as a real process on the sim world, treated badly: kill -9 again and again while
 * slots are open, exchange answers that come after the client gave up, connections reset after the
 * order was sent, 429s and a dropped WebSocket. What must hold afterwards: no position larger than one
 * slot's entry, no open position without a WOLF slot and a live guard file, no trade line twice.
 */

const HL = join(import.meta.dirname, "../../bin/hl.mjs");

let world: SimWorld;
let _dataDir: string;
let scratch: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  world = await startSimWorld({ port: 0, seed: 23 });
  scratch = mkdtempSync(join(tmpdir(), "wolf-chaos-"));
});

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  await world?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Run {
  child: ChildProcess;
  out: () => string;
  exited: Promise<number | null>;
}

function startWolf(dir: string, extraNodeArgs: string[] = [], webhook = ""): Run {
  const child = spawn(
    "node",
    [...extraNodeArgs, HL, "wolf", "run", "--mock", "--tick", "1", "--max-ticks", "1000", "--data-dir", dir],
    {
      env: {
        ...process.env,
        DATA_DIR: dir,
        HL_API_URL: world.url,
        HL_NETWORK: "",
        HL_PRIVATE_KEY: "",
        WOLF_TICK: "",
        HL_ALERT_WEBHOOK: webhook,
        HL_RATE_WEIGHT_PER_MIN: "100000",
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  children.push(child);
  let text = "";
  child.stdout?.on("data", (d) => (text += d));
  child.stderr?.on("data", (d) => (text += d));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, out: () => text, exited };
}

async function until(pred: () => boolean, ms: number, what: string, run?: Run): Promise<void> {
  const deadline = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${run?.out() ?? ""}`);
    if (run && run.child.exitCode !== null)
      throw new Error(`hl wolf run exited while waiting for ${what}\n${run.out()}`);
    await sleep(50);
  }
}

function readState(dir: string): WolfState | undefined {
  try {
    const r = loadWolfState(dir);
    return r.kind === "ok" ? r.state : undefined;
  } catch {
    return undefined; // mid-rename
  }
}

async function _fault(body: Record<string, unknown>): Promise<void> {
  const res = await fetch(`${world.url}/sim/fault`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(res.ok, await res.text()).toBe(true);
}

describe("hl wolf run under chaos", () => {
  it("logs a stray error, alerts and keeps running instead of exiting", async () => {
    const dir = join(scratch, "stray");
    // Preloaded into the real process: once WOLF has saved its state, an error escapes every handler.
    const preload = join(scratch, "stray.mjs");
    writeFileSync(
      preload,
      `import { existsSync } from "node:fs";
const t = setInterval(() => {
  if (!existsSync(${JSON.stringify(statePath(dir))})) return;
  clearInterval(t);
  Promise.reject(new Error("stray socket hang up"));
}, 50);
t.unref();
`,
    );
    const alerts: string[] = [];
    const hook = createServer((req, res) => {
      let body = "";
      req.on("data", (d) => (body += d));
      req.on("end", () => {
        alerts.push(body);
        res.end("ok");
      });
    });
    await new Promise<void>((r) => hook.listen(0, "127.0.0.1", r));
    const hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
    const run = startWolf(dir, ["--import", pathToFileURL(preload).href], hookUrl);
    await until(
      () => /unhandled rejection: stray socket hang up; still running/.test(run.out()),
      20_000,
      "the stray error's log line",
      run,
    );
    await until(() => alerts.some((a) => a.includes("stray socket hang up")), 5_000, "the alert", run);
    expect(JSON.parse(alerts.find((a) => a.includes("stray"))!).event).toBe("crash");
    const ticked = readState(dir)?.tick_count ?? 0;
    await until(() => (readState(dir)?.tick_count ?? 0) > ticked + 1, 10_000, "two more ticks", run);
    run.child.kill("SIGTERM");
    expect(await run.exited, run.out()).toBe(0);
    hook.close();
  }, 40_000);
});

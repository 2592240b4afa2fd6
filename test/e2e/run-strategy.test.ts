import { execFile, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { startSimWorld } from "../../src/sim/world.ts";

/** `hl run` as a user runs it: --mock starts its own sim world; state lands in $DATA_DIR/cli/state.db. */
const execFileP = promisify(execFile);
const HL = join(import.meta.dirname, "../../bin/hl.mjs");
const roots: string[] = [];

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const port = (srv.address() as { port: number }).port;
  await new Promise((r) => srv.close(r));
  return port;
}

async function envFor(): Promise<NodeJS.ProcessEnv> {
  const root = mkdtempSync(join(tmpdir(), "hl-run-e2e-"));
  roots.push(root);
  return {
    ...process.env,
    DATA_DIR: join(root, "data"),
    HL_AGENT_HOME: join(root, "home"),
    SIM_PORT: String(await freePort()),
    HL_API_URL: "",
    HL_NETWORK: "",
    HL_PRIVATE_KEY: "",
    HL_KEYSTORE_ADDRESS: "",
    HL_RATE_WEIGHT_PER_MIN: "1000000",
  };
}

const hasSqlite3 = spawnSync("sqlite3", ["-version"]).status === 0;

afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

describe("hl run (e2e)", () => {
  it("hl run simple_mm --mock --max-ticks 20 --tick 0.2 leaves a state.db with the contract's kv keys", async () => {
    const env = await envFor();
    const { stdout } = await execFileP(
      "node",
      [HL, "run", "simple_mm", "--mock", "--max-ticks", "20", "--tick", "0.2"],
      {
        env,
        timeout: 90_000,
      },
    );
    expect(stdout).toContain("Mode: MOCK");
    expect(stdout).toContain("Ticks: 20 this run, 20 in total");
    expect(stdout).toContain("T20 ETH");
    const db = join(env.DATA_DIR!, "cli", "state.db");
    const { stdout: status } = await execFileP("node", [HL, "status", "--json"], { env });
    expect(JSON.parse(status)).toMatchObject({
      status: "running",
      engine: "simple_mm",
      tick_count: 20,
      instrument: "ETH-PERP",
    });
    if (!hasSqlite3) {
      console.warn("sqlite3 binary not found: skipping the sqlite3 CLI read of state.db (CI installs it)");
      return;
    }
    const rows = spawnSync("sqlite3", [db, "SELECT key, value FROM kv ORDER BY key"], {
      encoding: "utf8",
    }).stdout;
    const kv: Record<string, string> = Object.fromEntries(
      rows
        .trim()
        .split("\n")
        .map((l) => [l.slice(0, l.indexOf("|")), l.slice(l.indexOf("|") + 1)]),
    );
    for (const key of [
      "tick_count",
      "positions",
      "risk",
      "start_time_ms",
      "strategy_id",
      "instrument",
      "order_stats",
    ]) {
      expect(kv).toHaveProperty(key);
    }
    expect(JSON.parse(kv.tick_count ?? "null")).toBe(20);
    expect(JSON.parse(kv.strategy_id ?? "null")).toBe("simple_mm");
    expect(JSON.parse(kv.order_stats ?? "null").total_placed).toBeGreaterThan(0);
    expect(JSON.parse(kv.positions ?? "null").agents.simple_mm["ETH-PERP"]).toHaveProperty("unrealized_pnl");
  }, 120_000);

  it("refuses a second run on the same data; SIGTERM cancels resting orders, saves state and exits 0", async () => {
    const env = await envFor();
    const child = spawn("node", [HL, "run", "simple_mm", "--mock", "--tick", "5"], { env });
    let err = "";
    child.stderr.on("data", (c: Buffer) => {
      err += c.toString();
    });
    let out = "";
    child.stdout.on("data", (c: Buffer) => {
      out += c.toString();
    });
    const deadline = Date.now() + 60_000;
    while (!out.includes("T1 ETH") && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));

    // A second trading loop on the same data is refused while this one runs (it would trade twice).
    const second = await execFileP("node", [HL, "run", "grid_mm", "--mock", "--max-ticks", "1"], {
      env,
    }).catch((e: { code: number; stderr: string }) => e);
    expect(second).toMatchObject({ code: 1 });
    expect((second as { stderr: string }).stderr).toMatch(
      new RegExp(
        `^error: hl run simple_mm \\(pid ${child.pid}\\) is already trading from .*; stop it first\n$`,
      ),
    );

    const sentAt = Date.now();
    child.kill("SIGTERM");
    const code = await new Promise<number | null>((r) => child.on("exit", r));
    expect(code).toBe(0);
    expect(Date.now() - sentAt).toBeLessThan(4000); // did not wait out the 5 s tick
    expect(`${out}${err}`).toMatch(/cancelled \d+ resting order/);
    expect(out).toContain("stopped: signal");
    const { stdout } = await execFileP("node", [HL, "status"], { env });
    expect(stdout).toContain("Run: stopped");
  }, 120_000);

  it("--dead-man: quotes of a SIGKILLed run are cancelled by the exchange within the window", async () => {
    const env = await envFor();
    // The sim world lives in this process, so killing the trader leaves the venue running. A fresh
    // paper account has traded nothing: waive the exchange's $1M volume gate on the switch.
    process.env.HL_SIM_SCHEDULE_CANCEL_ANY_VOLUME = "1";
    const world = await startSimWorld({ port: Number(env.SIM_PORT), seed: 4, liveCoins: ["ETH"] });
    delete process.env.HL_SIM_SCHEDULE_CANCEL_ANY_VOLUME;
    try {
      const child = spawn("node", [HL, "run", "simple_mm", "--mock", "--tick", "1", "--dead-man", "8"], {
        env,
      });
      let out = "";
      child.stdout.on("data", (c: Buffer) => {
        out += c.toString();
      });
      const deadline = Date.now() + 60_000;
      while (!out.includes("T2 ETH") && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      const { address } = JSON.parse(readFileSync(join(env.DATA_DIR!, "paper", "key.json"), "utf8")) as {
        address: string;
      };
      const openOrders = async () => {
        const res = await fetch(`${world.url}/info`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ type: "openOrders", user: address }),
        });
        return ((await res.json()) as unknown[]).length;
      };
      child.kill("SIGKILL");
      await new Promise((r) => child.once("exit", r));
      const killedAt = Date.now();
      expect(await openOrders()).toBeGreaterThan(0); // no shutdown ran: the quotes are still on the book
      while ((await openOrders()) > 0 && Date.now() - killedAt < 20_000)
        await new Promise((r) => setTimeout(r, 250));
      expect(await openOrders()).toBe(0);
      expect(Date.now() - killedAt).toBeLessThan(12_000); // armed for 8 s, renewed at most 1 tick before
    } finally {
      await world.close();
    }
  }, 120_000);

  it("bad input is one readable line and exit 1", async () => {
    const env = await envFor();
    const r = await execFileP("node", [HL, "run", "no_such", "--mock"], { env }).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect(r).toMatchObject({ code: 1 });
    expect((r as { stderr: string }).stderr).toMatch(
      /^error: unknown strategy "no_such" \(available: .*simple_mm/,
    );
  }, 60_000);

  it("hl strategies --json prints the catalog", async () => {
    const { stdout } = await execFileP("node", [HL, "strategies", "--json"], { env: await envFor() });
    const c = JSON.parse(stdout);
    expect(Object.keys(c.strategies)).toHaveLength(14);
    expect(c.markets).toHaveProperty("VXX-USDYP");
  }, 60_000);
});

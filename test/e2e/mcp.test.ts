import { execFileSync } from "node:child_process";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SimWorld, startSimWorld } from "../../src/sim/world.ts";
import { loadWolfState } from "../../src/wolf/state.ts";
import { call, connectStdio, serverEnv, tempDirs, text } from "../services/mcp/helpers.ts";

/**
 * A paper session through MCP as an agent would run it: `hl mcp serve` over stdio, a sim world as the
 * exchange. WOLF runs five half-second ticks with a progress notification each, its status then shows
 * the slots, and a manual trade fills. Closing the client stops a loop still running, gracefully.
 */

const dirs = tempDirs("mcp-e2e");
let world: SimWorld;
let env: Record<string, string>;
let client: Client;

beforeAll(async () => {
  // Needs the exchange's per-IP weight limit off: every tool's `hl` child starting and reading markets within seconds spend more than
  // one IP's 1200 a minute. The per-address limit stays on.
  world = await startSimWorld({ ipWeightLimit: false, port: 0, seed: 5 });
  env = serverEnv(dirs, world.url);
  client = await connectStdio(env);
});

afterAll(async () => {
  await client?.close();
  await world?.close();
  dirs.cleanup();
});

/** Processes whose command line names this test's data dir (the WOLF job runs with --data-dir). */
function jobsOfThisTest(): string[] {
  const ps = execFileSync("ps", ["-eo", "pid,args"], { encoding: "utf8" });
  return ps.split("\n").filter((l) => l.includes(dirs.dataDir) && l.includes("wolf run"));
}

describe("MCP paper session over stdio", () => {
  it("wolf_run streams a progress notification per tick and returns the summary; wolf_status shows the slots", async () => {
    const progress: { progress: number; total?: number; message?: string }[] = [];
    const r = await call(
      client,
      "wolf_run",
      { mock: true, max_ticks: 5, tick: 0.5 },
      { onprogress: (p) => progress.push(p) },
    );
    expect(r.isError, text(r)).toBeFalsy();
    expect(progress.map((p) => p.progress)).toEqual([1, 2, 3, 4, 5]);
    expect(
      progress.every((p) => p.total === 5 && /^tick \d+: \d+\/\d+ slots active/.test(p.message ?? "")),
    ).toBe(true);
    const summary = (
      r.structuredContent as { network: string; summary: { tick_count: number; max_slots: number } }
    ).summary;
    expect(r.structuredContent).toMatchObject({ network: "paper" });
    expect(summary.tick_count).toBe(5);

    const status = await call(client, "wolf_status");
    expect(status.isError, text(status)).toBeFalsy();
    const st = status.structuredContent as {
      engine: string;
      tick_count: number;
      max_slots: number;
      active_slots: unknown[];
    };
    expect(st).toMatchObject({ engine: "wolf", tick_count: 5, max_slots: summary.max_slots });
    expect(Array.isArray(st.active_slots)).toBe(true);
    expect(st.max_slots).toBeGreaterThan(0);
  });

  it("trade fills on the paper network", async () => {
    const r = await call(client, "trade", { instrument: "BTC-PERP", side: "sell", size: 0.002 });
    expect(r.isError, text(r)).toBeFalsy();
    expect(r.structuredContent).toMatchObject({
      network: "paper",
      result: { status: "filled", totalSz: "0.002", order: { side: "sell", tif: "Ioc" } },
    });
  });

  it("closing the client stops a running loop gracefully instead of orphaning it", async () => {
    const ticks: number[] = [];
    const before = loadWolfState(dirs.dataDir);
    const startTicks = before.kind === "ok" ? before.state.tick_count : 0;
    const run = call(
      client,
      "wolf_run",
      { mock: true, tick: 0.5 },
      { onprogress: (p) => ticks.push(p.progress) },
    );
    run.catch(() => {});
    const deadline = Date.now() + 60_000;
    while (ticks.length < 1 && Date.now() < deadline) await new Promise((res) => setTimeout(res, 50));
    expect(jobsOfThisTest().length).toBeGreaterThan(0);

    await client.close();
    const gone = Date.now() + 15_000;
    while (jobsOfThisTest().length > 0 && Date.now() < gone) await new Promise((res) => setTimeout(res, 100));
    expect(jobsOfThisTest()).toEqual([]);
    const after = loadWolfState(dirs.dataDir);
    expect(after.kind === "ok" && after.state.tick_count).toBeGreaterThanOrEqual(startTicks + ticks.length);
  });
});

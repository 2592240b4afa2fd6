import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, runningJobCount } from "../../../src/services/mcp/cli-job.ts";
import { ToolError } from "../../../src/services/mcp/tool.ts";
import { engineSummary, wolfSummary } from "../../../src/services/mcp/tools/summaries.ts";
import { type McpHttpServer, serveHttp } from "../../../src/services/mcp/transports.ts";
import { type SimWorld, startSimWorld } from "../../../src/sim/world.ts";
import { call, connectHttp, serverEnv, tempDirs } from "./helpers.ts";

/**
 * Long tools never block the server, and stopping them is graceful: a client's cancel (or the
 * timeout) sends SIGTERM to the job's process group and the loop saves its state before exiting.
 */

const dirs = tempDirs("mcp-long");
let world: SimWorld;
let env: Record<string, string>;
let server: McpHttpServer;
let client: Client;

beforeAll(async () => {
  // Needs the exchange's per-IP weight limit off: fast-ticking runs started by the tools spend more than
  // one IP's 1200 a minute. The per-address limit stays on.
  world = await startSimWorld({ ipWeightLimit: false, port: 0, seed: 3 });
  env = serverEnv(dirs, world.url);
  server = await serveHttp("http", 0, "127.0.0.1", { env, dataDir: dirs.dataDir });
  client = await connectHttp(`http://127.0.0.1:${server.port}`);
});

afterAll(async () => {
  await client?.close();
  await server?.close();
  await world?.close();
  dirs.cleanup();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(cond: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond() && Date.now() < deadline) await sleep(50);
}

describe("a long wolf_run", () => {
  it("does not block other tools, and a client cancel stops it gracefully with its state saved", async () => {
    const ac = new AbortController();
    const ticks: number[] = [];
    const run = call(
      client,
      "wolf_run",
      { mock: true, max_ticks: 1000, tick: 0.5 },
      {
        signal: ac.signal,
        onprogress: (p) => ticks.push(p.progress),
      },
    );
    run.catch(() => {}); // the cancelled request rejects on the client side
    await until(() => ticks.length >= 2, 60_000);
    expect(ticks.length).toBeGreaterThanOrEqual(2);
    expect(runningJobCount()).toBe(1);

    // While WOLF ticks, information tools still answer at once.
    const t0 = performance.now();
    const strategies = await call(client, "strategies");
    const elapsed = performance.now() - t0;
    expect(strategies.isError).toBeFalsy();
    expect(elapsed).toBeLessThan(1000);

    ac.abort("user pressed stop");
    await expect(run).rejects.toThrow();
    await until(() => runningJobCount() === 0, 20_000);
    expect(runningJobCount()).toBe(0);
    // Graceful: the loop wrote its state (ticks it finished) on the way out.
    const saved = wolfSummary(dirs.dataDir) as { tick_count: number; max_slots: number } | null;
    expect(saved?.tick_count).toBeGreaterThanOrEqual(ticks.length);
    expect(saved?.max_slots).toBeGreaterThan(0);
  });
});

describe("the job timeout", () => {
  it("sends SIGTERM at the limit: the run stops cleanly, the error says so and carries its output", async () => {
    const ac = new AbortController();
    const started = Date.now();
    let ticked = false;
    const job = runCli({
      args: ["run", "simple_mm", "--mock", "--tick", "0.2"],
      env,
      signal: ac.signal,
      timeoutMs: 6000,
      // SIGKILL only after 60 s: an exit well before that was the job's own graceful stop.
      graceMs: 60_000,
      onLine: (line) => {
        if (/\] T\d+ ETH/.test(line)) ticked = true;
        return undefined;
      },
    });
    const err = await job.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ToolError);
    expect((err as ToolError).message).toBe("hl run timed out after 6 s");
    expect((err as ToolError).details).toMatchObject({ stopped: true });
    expect((err as ToolError).details?.exit_signal).not.toBe("SIGKILL");
    expect(Date.now() - started).toBeLessThan(40_000);
    expect(runningJobCount()).toBe(0);
    // Once the engine was running, SIGTERM let it print its summary and keep its state. (On a loaded
    // machine the limit can fall inside start-up; then there is nothing to save yet.)
    if (ticked) {
      expect(String((err as ToolError).details?.stdout)).toMatch(/stopped: signal/);
      expect(engineSummary(dirs.dataDir)).toMatchObject({ engine: "simple_mm" });
    }
  });
});

import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SimWorld, startSimWorld } from "../../src/sim/world.ts";
import { freeUpPorts, getJson, HL, until } from "../e2e/up-helpers.ts";

/**
 * A long-running service loads only what it serves: the agent service and a price feed never load
 * the LLM SDKs, viem, the MCP SDK or the sim world. Checked on real `hl` processes, from the list of
 * modules each one loaded (HL_TRACE_MODULES, see bin/hl.mjs).
 */
const HEAVY: Record<string, RegExp> = {
  "LLM SDKs": /node_modules\/(@anthropic-ai\/sdk|openai|@google\/genai)\//,
  viem: /node_modules\/viem\//,
  "MCP SDK": /node_modules\/@modelcontextprotocol\/sdk\//,
  "sim world": /\/(src|dist)\/sim\//,
  // Without DATABASE_URL the services keep their SQLite files and never load the Postgres client.
  "Postgres client": /node_modules\/pg\//,
};

/** fastify and the libraries only it loads (its router, plugin loader, schema compilers). */
const FRAMEWORK = /node_modules\/(fastify|find-my-way|avvio|@fastify\/[^/]+|fast-json-stringify|ajv)\//;

const dir = mkdtempSync(join(tmpdir(), "hl-lazy-"));
let sim: SimWorld;
const children: ChildProcess[] = [];

beforeAll(async () => {
  sim = await startSimWorld({ seed: 3 });
});

afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Start `hl args…` with module tracing, wait for `ready`, stop it; the modules it loaded. */
async function loadedBy(
  name: string,
  args: string[],
  env: Record<string, string>,
  /** Stop the command once this holds; without it the command ends by itself. */
  ready?: () => Promise<boolean>,
) {
  const trace = join(dir, `${name}.trace`);
  const child = spawn(process.execPath, [HL, ...args], {
    env: {
      ...process.env,
      HL_NETWORK: "paper",
      HL_API_URL: sim.url,
      HL_PRIVATE_KEY: "",
      DATA_DIR: join(dir, name),
      HL_TRACE_MODULES: trace,
      ...env,
    },
    stdio: "ignore",
  });
  children.push(child);
  const exited = new Promise((resolve) => child.once("exit", resolve));
  if (ready) {
    await until(`${name} ready`, ready, Date.now() + 25_000);
    child.kill("SIGTERM");
  }
  await exited;
  const own = `${child.pid} `;
  return readFileSync(trace, "utf8")
    .split("\n")
    .filter((line) => line.startsWith(own))
    .map((line) => line.slice(own.length));
}

function heavyIn(modules: string[]): Record<string, string[]> {
  const found: Record<string, string[]> = {};
  for (const [what, pattern] of Object.entries(HEAVY)) {
    const hits = modules.filter((m) => pattern.test(m));
    if (hits.length > 0) found[what] = hits.slice(0, 3);
  }
  return found;
}

describe("lazy imports", () => {
  it("`hl agent serve` loads none of the heavy modules, while serving status and strategies", async () => {
    const { agent: port } = await freeUpPorts();
    const base = `http://127.0.0.1:${port}`;
    const modules = await loadedBy(
      "agent",
      ["agent", "serve", "--port", String(port), "--host", "127.0.0.1"],
      { RUN_MODE: "strategy", STRATEGY: "simple_mm", INSTRUMENT: "ETH-PERP", TICK_INTERVAL: "1" },
      async () =>
        (await getJson(`${base}/health`)) !== undefined &&
        (await getJson(`${base}/api/status`)) !== undefined &&
        (await getJson(`${base}/api/strategies`)) !== undefined,
    );
    expect(modules.some((m) => /services\/agent\/server\.(ts|js)$/.test(m))).toBe(true);
    expect(heavyIn(modules)).toEqual({});
    // The service runs on node:http with its own router: no web framework at all.
    expect(modules.filter((m) => FRAMEWORK.test(m))).toEqual([]);
  });

  it("`hl agent serve` at rest (health and status) loads neither the strategies, the schema libraries nor prom-client", async () => {
    const { agent: port } = await freeUpPorts();
    const base = `http://127.0.0.1:${port}`;
    const modules = await loadedBy(
      "agent-rest",
      ["agent", "serve", "--port", String(port), "--host", "127.0.0.1"],
      { RUN_MODE: "strategy", STRATEGY: "simple_mm", INSTRUMENT: "ETH-PERP", TICK_INTERVAL: "1" },
      async () =>
        (await getJson(`${base}/health`)) !== undefined &&
        (await getJson(`${base}/api/status`)) !== undefined,
    );
    expect(modules.some((m) => /services\/agent\/server\.(ts|js)$/.test(m))).toBe(true);
    expect(modules.filter((m) => /\/(src|dist)\/strategies\//.test(m))).toEqual([]);
    expect(modules.filter((m) => /node_modules\/zod\//.test(m))).toEqual([]);
    // schema compilers (no route has a schema) and prom-client (until /metrics is read)
    const heavy = /node_modules\/(ajv|prom-client)\/|node_modules\/fast-json-stringify\/index\.js/;
    expect(modules.filter((m) => heavy.test(m))).toEqual([]);
  });

  it("the long-lived `hl up` process loads neither the exchange client nor the schema library", async () => {
    // `hl up --help` loads the same modules as `hl up` before it starts anything. Of src/exchange it
    // holds only the weight broker it runs for its children (a budget and a socket), no client.
    const modules = await loadedBy("up", ["up", "--help"], {});
    expect(modules.some((m) => /services\/up\/run\.(ts|js)$/.test(m))).toBe(true);
    const broker = /\/exchange\/(budget|broker-budget|weight-broker|weight-broker-protocol)\.(ts|js)$/;
    expect(modules.filter((m) => /\/(src|dist)\/exchange\//.test(m) && !broker.test(m))).toEqual([]);
    expect(modules.filter((m) => /node_modules\/zod\//.test(m))).toEqual([]);
    expect(heavyIn(modules)).toEqual({});
  });

  it("a price feed loads none of the heavy modules while it serves ticks", async () => {
    const { feeds: port } = await freeUpPorts();
    const modules = await loadedBy(
      "feed",
      ["feeds", "serve", "--feed", "btcswp", "--port", String(port), "--network", "paper"],
      {},
      async () => (await getJson(`http://127.0.0.1:${port}/healthz`)) !== undefined,
    );
    expect(modules.some((m) => /services\/feeds\/server\.(ts|js)$/.test(m))).toBe(true);
    expect(heavyIn(modules)).toEqual({});
  });

  it("a trading run of a strategy without an LLM loads neither the LLM SDKs nor the MCP SDK", async () => {
    const modules = await loadedBy(
      "run",
      ["run", "simple_mm", "-i", "ETH-PERP", "--tick", "1", "--max-ticks", "2", "--network", "paper"],
      {},
    );
    expect(modules.some((m) => /engine\/runner\.(ts|js)$/.test(m))).toBe(true);
    const { "LLM SDKs": llm, "MCP SDK": mcp, "sim world": simWorld } = heavyIn(modules);
    expect({ llm, mcp, simWorld }).toEqual({ llm: undefined, mcp: undefined, simWorld: undefined });
  });
});

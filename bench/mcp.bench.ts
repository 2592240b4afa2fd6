import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { type BenchReporter, percentile } from "./harness.ts";

/**
 * Round-trip latency of the in-process tools over stdio, as an agent sees it: the SDK client against
 * a spawned `hl mcp serve` (JSON-RPC framing, schema validation, the tool, structured + text result).
 */

const TOOLS = [
  "strategies",
  "builder_status",
  "wallet_list",
  "setup_check",
  "agent_memory",
  "trade_journal",
  "judge_report",
];
const WARMUP = 30;
const CALLS = 300;

export default async function (r: BenchReporter): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), "mcp-bench-"));
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && k !== "HL_PRIVATE_KEY") env[k] = v;
  Object.assign(env, {
    DATA_DIR: join(root, "data"),
    HL_AGENT_HOME: join(root, "home"),
    HL_NETWORK: "paper",
  });
  const client = new Client({ name: "bench", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [join(import.meta.dirname, "../bin/hl.mjs"), "mcp", "serve"],
      env,
    }),
  );
  try {
    const all: number[] = [];
    for (const name of TOOLS) {
      for (let i = 0; i < WARMUP; i++) await client.callTool({ name, arguments: {} });
      const samples: number[] = [];
      for (let i = 0; i < CALLS; i++) {
        const t0 = performance.now();
        await client.callTool({ name, arguments: {} });
        samples.push(performance.now() - t0);
      }
      all.push(...samples);
      r.figure({
        name: `mcp stdio ${name} p99`,
        value: percentile(samples, 99),
        unit: "ms",
        target: { op: "<", value: 10 },
      });
    }
    r.figure({ name: "mcp stdio information+context tools p50", value: percentile(all, 50), unit: "ms" });
    r.figure({
      name: "mcp stdio information+context tools p99",
      value: percentile(all, 99),
      unit: "ms",
      target: { op: "<", value: 10 },
    });
  } finally {
    await client.close();
    rmSync(root, { recursive: true, force: true });
  }
}

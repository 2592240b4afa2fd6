import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

/**
 * Commands that send orders refuse mainnet without --yes, before touching any network or key — so a
 * stray HL_NETWORK=mainnet never turns a trial into a live run.
 */
const run = promisify(execFile);
const HL = join(import.meta.dirname, "../../bin/hl.mjs");
// Unroutable on purpose: a refusal must come before any connection attempt.
const env = { ...process.env, HL_API_URL: "http://127.0.0.1:9", HL_PRIVATE_KEY: "", HL_NETWORK: "" };

async function hl(args: string[], extraEnv: Record<string, string> = {}) {
  try {
    await run(process.execPath, [HL, ...args], { env: { ...env, ...extraEnv }, timeout: 60_000 });
    return { code: 0, stderr: "" };
  } catch (err) {
    const e = err as { code?: number; stderr?: string };
    return { code: e.code ?? -1, stderr: e.stderr ?? "" };
  }
}

describe("mainnet consent", () => {
  it("hl run, hl wolf run, hl wolf once, hl trade and hl close need --yes on mainnet", {
    timeout: 90_000,
  }, async () => {
    const [runFlag, runEnv, runMainnet, wolfRun, wolfOnce, trade, close] = await Promise.all([
      hl(["run", "simple_mm", "--network", "mainnet"]),
      hl(["run", "simple_mm"], { HL_NETWORK: "mainnet" }),
      hl(["run", "simple_mm", "--mainnet"]),
      hl(["wolf", "run"], { HL_NETWORK: "mainnet" }),
      hl(["wolf", "once", "--network", "mainnet"]),
      hl(["trade", "ETH-PERP", "buy", "0.01", "--network", "mainnet"]),
      hl(["close", "--all"], { HL_NETWORK: "mainnet" }),
    ]);
    for (const r of [runFlag, runEnv, runMainnet]) {
      expect(r.code).toBe(1);
      expect(r.stderr).toBe("error: hl run on mainnet sends real orders: add --yes to confirm\n");
    }
    expect(wolfRun.stderr).toBe("error: hl wolf run on mainnet sends real orders: add --yes to confirm\n");
    expect(wolfOnce.stderr).toBe("error: hl wolf once on mainnet sends real orders: add --yes to confirm\n");
    expect(trade.stderr).toBe("error: hl trade on mainnet sends real orders: add --yes to confirm\n");
    expect(close.stderr).toBe("error: hl close on mainnet sends real orders: add --yes to confirm\n");
    for (const r of [wolfRun, wolfOnce, trade, close]) expect(r.code).toBe(1);
  });
});

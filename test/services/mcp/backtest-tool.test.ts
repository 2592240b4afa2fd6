import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpApp, type HttpApp } from "../../../src/http/app.ts";
import { mountMcpHttp } from "../../../src/services/mcp/mount.ts";
import { backtest } from "../../../src/services/mcp/tools/backtest.ts";
import { writeSimStore } from "../../backtest/write-sim-store.ts";
import { call, connectHttp, serverEnv, tempDirs, text } from "./helpers.ts";

/** The `backtest` tool: long-running, progress notifications, the summary as its result. */
const dirs = tempDirs("mcp-backtest");
const END = Date.UTC(2026, 2, 3, 0, 0);
const HOUR = 3_600_000;
let app: HttpApp;
let client: Client;

beforeAll(async () => {
  await writeSimStore(dirs.dataDir, { endMs: END, days: 1, network: "paper" });
  app = createHttpApp({ name: "agent-test" });
  mountMcpHttp(app, { env: { ...serverEnv(dirs), HL_NETWORK: "paper" }, dataDir: dirs.dataDir });
  client = await connectHttp(`http://127.0.0.1:${await app.listen(0)}`);
});

afterAll(async () => {
  await client?.close();
  await app?.close();
  dirs.cleanup();
});

describe("MCP backtest tool", () => {
  it("reports progress while it replays and returns the report's figures", async () => {
    const progress: { progress: number; total?: number }[] = [];
    const r = await call(
      client,
      "backtest",
      {
        strategy: "mean_reversion",
        from: new Date(END - 4 * HOUR).toISOString(),
        to: new Date(END).toISOString(),
        params: { threshold_bps: 4, size: 0.5 },
        slippage_bps: 0,
      },
      { onprogress: (p) => progress.push(p) },
    );
    expect(r.isError, text(r)).toBeFalsy();
    const summary = r.structuredContent as {
      strategy: string;
      candles: number;
      fills: number;
      report: string;
      pnl_usd: string;
    };
    expect(summary).toMatchObject({ strategy: "mean_reversion", instrument: "ETH-PERP", candles: 240 });
    expect(summary.fills).toBeGreaterThan(0);
    expect(summary.report).toMatch(/\.html$/);
    expect(text(r)).toContain(`PnL: ${summary.pnl_usd} USD`);
    // Throttled to about one notification per percent, rising, with the run's total.
    expect(progress.length).toBeGreaterThanOrEqual(50);
    expect(progress.length).toBeLessThanOrEqual(101);
    expect(progress.every((p, i) => i === 0 || p.progress > progress[i - 1]!.progress)).toBe(true);
    expect(new Set(progress.map((p) => p.total)).size).toBe(1);
  }, 60_000);

  it("runs with fee rates of one's own and a participation cap, as `hl backtest` does", async () => {
    const args = {
      strategy: "mean_reversion",
      from: new Date(END - 4 * HOUR).toISOString(),
      to: new Date(END).toISOString(),
      params: { threshold_bps: 4, size: 0.5 },
      slippage_bps: 0,
    };
    const figures = async (more: object) => {
      const r = await call(client, "backtest", { ...args, ...more });
      expect(r.isError, text(r)).toBeFalsy();
      return r.structuredContent as Record<string, string | number>;
    };
    const plain = await figures({});
    const own = await figures({ maker_fee: "0.0002", taker_fee: "0.004", participation_pct: 0.01 });
    expect(plain).toMatchObject({
      maker_fee_rate: "0.00015",
      taker_fee_rate: "0.00045",
      participation_pct: 10,
    });
    expect(own).toMatchObject({ maker_fee_rate: "0.0002", taker_fee_rate: "0.004", participation_pct: 0.01 });
    // The run itself changed, not only its labels.
    expect(Number(plain.fills)).toBeGreaterThan(0);
    expect(own.pnl_usd).not.toBe(plain.pnl_usd);
    const refused = await call(client, "backtest", { ...args, taker_fee: "0.5" });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/--taker-fee must be a fraction of notional/);
  }, 30_000);

  it("answers bad input as a tool error with one readable line", async () => {
    const r = await call(client, "backtest", {
      strategy: "mean_reversion",
      from: "2026-03-02",
      to: "2026-03-01",
    });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/--from .* must be before --to/);
    const none = await call(client, "backtest", {
      strategy: "mean_reversion",
      from: "2025-01-01",
      to: "2025-01-02",
    });
    expect(none.isError).toBe(true);
    expect(text(none)).toMatch(/no 1m candles for ETH on paper/);
  }, 30_000);

  it("stops mid-run when the request is cancelled", async () => {
    // Three days, so the run is far from its end however fast the replay gets.
    const dataDir = join(dirs.root, "long");
    await writeSimStore(dataDir, { endMs: END, days: 3, network: "paper" });
    const ac = new AbortController();
    const seen: number[] = [];
    let total = 0;
    const run = backtest.run(
      {
        strategy: "mean_reversion",
        instrument: "ETH-PERP",
        from: new Date(END - 3 * 24 * HOUR).toISOString(),
        to: new Date(END).toISOString(),
        params: { threshold_bps: 4, size: 0.5 },
        risk: {},
        fee_tier: 0,
        latency_ms: 0,
        slippage_bps: 1,
        participation_pct: 10,
        interval: "1m",
        network: "paper",
      },
      {
        signal: ac.signal,
        dataDir,
        env: { HL_NETWORK: "paper" },
        progress(p) {
          seen.push(p.progress);
          total = p.total ?? 0;
          // Delivered as a separate event, as a cancellation from the client is: only a run that
          // lets the event loop turn sees it before it ends.
          if (seen.length === 1) setTimeout(() => ac.abort(), 0);
        },
      },
    );
    await expect(run).rejects.toThrow(/cancelled/);
    expect(total).toBe(3 * 1440 + 1);
    expect(seen.at(-1)!).toBeLessThan(total / 2);
  }, 30_000);
});

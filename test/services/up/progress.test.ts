import { createServer, type Server } from "node:http";
import { describe, expect, it } from "vitest";
import { offOracle } from "../../../src/services/up/anchor.ts";
import { formatProgress, readProgress } from "../../../src/services/up/progress.ts";

/** A leaderboard answering per board: hl up's agents are on the paper board only. */
async function boards(totals: Record<string, number>): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const network = new URL(req.url ?? "/", "http://x").searchParams.get("network") ?? "";
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ network, total_agents: totals[network] ?? 0, agents: [] }));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}`, server };
}

describe("progress line", () => {
  const t = Date.UTC(2026, 0, 2, 12, 0, 5);

  it("shows ticks, PnL, slots, the board and BTCSWP on one line", () => {
    const line = formatProgress({
      nowMs: t,
      healthy: 10,
      total: 10,
      agentState: "running",
      tick: 14,
      totalPnl: -3.214,
      activeSlots: 2,
      maxSlots: 3,
      trades: 4,
      agentsOnBoard: 4,
      btcswp: "75012.345678",
      isfrBps: 463.85,
    });
    expect(line).toBe(
      "12:00:05 · 10/10 up · WOLF tick 14 PnL -3.21 2/3 slots 4 trades · leaderboard 4 agents · BTCSWP 75012.35 · ISFR 463.9 bps",
    );
    expect(line).not.toContain("\n");
  });

  it("says what is not known yet", () => {
    expect(formatProgress({ nowMs: t, healthy: 3, total: 10 })).toBe(
      "12:00:05 · 3/10 up · WOLF starting · leaderboard – agents · BTCSWP –",
    );
    expect(formatProgress({ nowMs: t, healthy: 10, total: 10, agentState: "paused", tick: 3 })).toContain(
      "WOLF tick 3 (paused)",
    );
  });
});

describe("progress sources", () => {
  it("counts the agents on the paper board, where hl up registers its agents", async () => {
    const lb = await boards({ paper: 5, testnet: 0 });
    try {
      const dead = "http://127.0.0.1:9";
      const p = await readProgress(
        { agentUrl: dead, leaderboardUrl: lb.url, btcswpFeedUrl: dead, isfrUrl: dead },
        { healthy: 1, total: 1 },
        0,
      );
      expect(p.agentsOnBoard).toBe(5);
    } finally {
      lb.server.close();
    }
  });
});

describe("progress PnL", () => {
  it("is the trader's books with its open positions, not the realised PnL alone (+0.00 while slots lose)", async () => {
    const server = createServer((req, res) => {
      res.setHeader("content-type", "application/json");
      const status = { status: "running", tick_count: 9, total_pnl: 0, account_pnl: -4.21, total_trades: 3 };
      res.end(JSON.stringify(req.url === "/api/status" ? status : { paused: false }));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const agentUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
      const dead = "http://127.0.0.1:9";
      const p = await readProgress(
        { agentUrl, leaderboardUrl: dead, btcswpFeedUrl: dead, isfrUrl: dead },
        { healthy: 1, total: 1 },
        0,
      );
      expect(p.totalPnl).toBe(-4.21);
    } finally {
      server.close();
    }
  });
});

describe("BTCSWP anchor", () => {
  it("moves the sim market only when it drifted more than 10 bps from the oracle", () => {
    expect(offOracle("8.5", "75000")).toBe(true);
    expect(offOracle(undefined, "75000")).toBe(true);
    expect(offOracle("75070", "75000")).toBe(false);
    expect(offOracle("75080", "75000")).toBe(true);
    expect(offOracle("74925", "75000")).toBe(false);
  });
});

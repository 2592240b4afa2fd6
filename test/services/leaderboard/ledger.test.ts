import { describe, expect, it } from "vitest";
import { D } from "../../../src/core/decimal.ts";
import { BoardBuilder } from "../../../src/services/leaderboard/board.ts";
import { type LedgerUpdate, markOf, netDepositsSince } from "../../../src/services/leaderboard/ledger.ts";
import { ClientRateLimiter } from "../../../src/services/leaderboard/rate-limit.ts";
import type { AgentRow } from "../../../src/services/leaderboard/store.ts";

const ME = "0x00000000000000000000000000000000000000aa";
const OTHER = "0x00000000000000000000000000000000000000bb";

let seq = 0;
const u = (time: number, delta: LedgerUpdate["delta"]): LedgerUpdate => ({
  time,
  hash: `0x${(++seq).toString(16)}`,
  delta,
});

describe("net deposits from the non-funding ledger", () => {
  it("counts only entries after the registration mark, telling same-millisecond entries apart by hash", () => {
    const before = u(100, { type: "deposit", usdc: "10000" });
    const sameMs = u(100, { type: "deposit", usdc: "5" });
    const mark = markOf([before]);
    expect(mark).toEqual({ timeMs: 100, hashes: [before.hash] });
    const later = u(200, { type: "withdraw", usdc: "30", fee: "1", nonce: 1 });
    expect(netDepositsSince([before, sameMs, later], ME, mark).toString()).toBe("-25");
    expect(netDepositsSince([before, later], ME, null).toString()).toBe("9970");
    expect(markOf([])).toBeNull();
  });

  it("signs each kind of flow from the perp account's point of view", () => {
    const entries = [
      u(1, { type: "deposit", usdc: "100" }),
      u(2, { type: "withdraw", usdc: "40", fee: "1", nonce: 2 }),
      u(3, { type: "internalTransfer", usdc: "7", user: OTHER, destination: ME, fee: "0" }),
      u(4, {
        type: "internalTransfer",
        usdc: "3",
        user: ME.toUpperCase().replace("0X", "0x"),
        destination: OTHER,
        fee: "1",
      }),
      u(5, { type: "accountClassTransfer", usdc: "20", toPerp: false }),
      u(6, { type: "accountClassTransfer", usdc: "5", toPerp: true }),
      u(7, {
        type: "send",
        user: ME,
        destination: ME,
        sourceDex: "",
        destinationDex: "xyz",
        usdcValue: "50",
        token: "USDC",
        amount: "50",
      }),
      u(8, {
        type: "send",
        user: ME,
        destination: ME,
        sourceDex: "",
        destinationDex: "spot",
        usdcValue: "8",
        token: "USDC",
        amount: "8",
      }),
      u(9, { type: "vaultDeposit", vault: OTHER, usdc: "10" }),
      u(10, { type: "vaultWithdraw", vault: OTHER, user: ME, requestedUsd: "12", netWithdrawnUsd: "11.5" }),
      u(11, { type: "liquidation", liquidatedNtlPos: "1000", accountValue: "10", leverageType: "Cross" }),
      u(12, {
        type: "spotTransfer",
        token: "HYPE",
        amount: "3",
        usdcValue: "90",
        user: OTHER,
        destination: ME,
        fee: "0",
      }),
      u(13, { type: "deposit", usdc: "not a number" }),
    ];
    // 100 − 40 + 7 − 3 − 20 + 5 + 0 − 8 − 10 + 11.5 = 42.5
    expect(netDepositsSince(entries, ME, null).toString()).toBe("42.5");
  });
});

function row(address: string, initial: string, value: string, over: Partial<AgentRow> = {}): AgentRow {
  return {
    network: "testnet",
    address,
    displayName: address.slice(-2),
    initialAccountValue: initial,
    registeredAt: 1000,
    ledgerMark: null,
    accountValue: value,
    positionsCount: 0,
    netDeposits: "0",
    refreshedAt: 1000,
    stale: false,
    lastError: null,
    tracking: null,
    ...over,
  };
}

describe("board ranking", () => {
  it("ranks by exact PnL, rounds to cents half-even, breaks ties by registration time", () => {
    const board = new BoardBuilder().build(
      [
        row("0x01", "100", "100.125"), // pnl 0.125 → 0.12
        row("0x02", "100", "100.1251"), // ranks above 0x01 although both show ~0.12/0.13
        row("0x03", "100", "90", { netDeposits: "-15", stale: true }),
        row("0x04", "100", "100.125", { registeredAt: 999 }),
      ],
      "testnet",
      5000,
    );
    expect(board.entries.map((e) => [e.address, e.rank, e.pnl])).toEqual([
      ["0x02", 1, 0.13],
      ["0x04", 2, 0.12],
      ["0x01", 3, 0.12],
      ["0x03", 4, -10],
    ]);
    expect(board.entries[3]).toMatchObject({ stale: true, pnl_adjusted: 5, net_deposits: -15 });
    expect(board.entries[0]).not.toHaveProperty("stale");
    expect(JSON.parse(board.body.toString())).toEqual({
      agents: board.entries,
      total_agents: 4,
      last_updated: 5000,
      network: "testnet",
    });
    expect(new D(board.entries[0]!.account_value).toString()).toBe("100.1251");
  });
});

describe("registration rate limit", () => {
  it("allows a burst, then one per refill period, per client", () => {
    let t = 0;
    const rl = new ClientRateLimiter(6, 2, () => t); // one token every 10 s
    expect([rl.take("a"), rl.take("a")]).toEqual([0, 0]);
    expect(rl.take("a")).toBe(10);
    expect(rl.take("b")).toBe(0);
    t += 10_000;
    expect(rl.take("a")).toBe(0);
    expect(rl.take("a")).toBeGreaterThan(0);
  });
});

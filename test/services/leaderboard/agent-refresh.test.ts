import { describe, expect, it } from "vitest";
import type { AccountReading, NetworkAccounts } from "../../../src/services/leaderboard/account-source.ts";
import { refreshAgent } from "../../../src/services/leaderboard/agent-refresh.ts";
import { type LedgerUpdate, markOf } from "../../../src/services/leaderboard/ledger.ts";
import type { AgentRow } from "../../../src/services/leaderboard/store.ts";
import {
  advanceCursor,
  type DexReading,
  SCAN_EVERY_MS,
  trackingOf,
} from "../../../src/services/leaderboard/tracking.ts";

const ME = "0x00000000000000000000000000000000000000aa";

interface Position {
  coin: string;
  szi: string;
  entryPx: string;
  unrealizedPnl: string;
  fundingSinceOpen: string;
}

/**
 * One account on a fake exchange that charges Hyperliquid's weights: `clearinghouseState` 2 per dex,
 * `userNonFundingLedgerUpdates` 20 (+1 per 20 entries), `perpDexs` 20.
 */
class FakeAccount implements NetworkAccounts {
  dexes = new Map<string, { accountValue: string; positions: Position[] }>([
    ["", { accountValue: "1000", positions: [] }],
  ]);
  entries: LedgerUpdate[] = [];
  weight = 0;
  ledgerReads = 0;
  readonly listed = ["xyz", "abc"];

  async hip3Dexes() {
    this.weight += 20;
    return this.listed;
  }
  async account(_user: string, hip3: readonly string[]): Promise<AccountReading> {
    const dexes = ["", ...hip3];
    this.weight += 2 * dexes.length;
    const perDex: DexReading[] = dexes.map((dex) => {
      const d = this.dexes.get(dex) ?? { accountValue: "0", positions: [] };
      return { dex, accountValue: d.accountValue, positions: d.positions.map((p) => ({ ...p })) };
    });
    const accountValue = perDex.reduce((s, r) => s + Number(r.accountValue), 0).toString();
    return { accountValue, positionsCount: perDex.reduce((n, r) => n + r.positions.length, 0), perDex };
  }
  async ledger(_user: string, startTime: number) {
    this.ledgerReads++;
    const page = this.entries.filter((u) => u.time >= startTime);
    this.weight += 20 + Math.floor(page.length / 20);
    return page;
  }
  async close() {}

  main() {
    return this.dexes.get("")!;
  }
  deposit(time: number, usdc: string) {
    this.entries.push({ time, hash: `0x${time}`, delta: { type: "deposit", usdc } });
    this.main().accountValue = (Number(this.main().accountValue) + Number(usdc)).toString();
  }
}

/** A registered agent as `register` stores it (every dex read, tracking anchored). */
async function registered(ex: FakeAccount, now = 0): Promise<AgentRow> {
  const reading = await ex.account(ME, await ex.hip3Dexes());
  const mark = markOf(await ex.ledger(ME, 0));
  ex.weight = 0;
  ex.ledgerReads = 0;
  return {
    network: "testnet",
    address: ME,
    displayName: "me",
    initialAccountValue: reading.accountValue,
    registeredAt: now,
    ledgerMark: mark,
    accountValue: reading.accountValue,
    positionsCount: reading.positionsCount,
    netDeposits: "0",
    refreshedAt: now,
    stale: false,
    lastError: null,
    tracking: trackingOf(reading.perDex, mark, now),
  };
}

/** Refresh and keep the result as the stored row; returns the weight that refresh cost. */
async function step(ex: FakeAccount, row: AgentRow, now = 1000): Promise<number> {
  const before = ex.weight;
  const v = await refreshAgent(row, ex, () => ex.hip3Dexes(), now);
  Object.assign(row, v);
  return ex.weight - before;
}

const pnlAdjusted = (row: AgentRow) =>
  Number(row.accountValue) - Number(row.initialAccountValue) - Number(row.netDeposits);

describe("leaderboard: one agent's refresh at the least weight", () => {
  it("asks only the main dex (weight 2) while price moves and funding are all that changed", async () => {
    const ex = new FakeAccount();
    ex.main().positions = [
      { coin: "ETH", szi: "1", entryPx: "3000", unrealizedPnl: "0", fundingSinceOpen: "0" },
    ];
    const row = await registered(ex);
    expect(row.tracking?.dexes).toEqual([]);
    // price up 50: value and unrealized PnL move together
    ex.main().accountValue = "1050";
    ex.main().positions[0]!.unrealizedPnl = "50";
    expect(await step(ex, row)).toBe(2);
    // funding paid: value down 1.5, sinceOpen up 1.5
    ex.main().accountValue = "1048.5";
    ex.main().positions[0]!.fundingSinceOpen = "1.5";
    expect(await step(ex, row)).toBe(2);
    expect(ex.ledgerReads).toBe(0);
    expect(row.accountValue).toBe("1048.5");
    expect(pnlAdjusted(row)).toBe(48.5);
  });

  it("reads the ledger only when money moved that PnL does not explain: deposits and withdrawals still counted", async () => {
    const ex = new FakeAccount();
    ex.entries.push({ time: 5, hash: "0xold", delta: { type: "deposit", usdc: "1000" } });
    const row = await registered(ex);
    ex.deposit(10, "250");
    expect(await step(ex, row)).toBe(22);
    expect(row.netDeposits).toBe("250");
    expect(pnlAdjusted(row)).toBe(0);
    // Nothing moved since: back to weight 2, the deposit is not counted twice.
    expect(await step(ex, row)).toBe(2);
    expect(row.netDeposits).toBe("250");
    // A withdrawal in the same millisecond as the last entry read is still found (hash, not time).
    ex.entries.push({ time: 10, hash: "0xw", delta: { type: "withdraw", usdc: "100", nonce: 1, fee: "1" } });
    ex.main().accountValue = "1150";
    expect(await step(ex, row)).toBe(22);
    expect(row.netDeposits).toBe("150");
    expect(pnlAdjusted(row)).toBe(0);
    expect(ex.ledgerReads).toBe(2);
  });

  it("a move below a cent is rounding, not a transfer", async () => {
    const ex = new FakeAccount();
    const row = await registered(ex);
    ex.main().accountValue = "1000.000004";
    expect(await step(ex, row)).toBe(2);
  });

  it("reads the ledger after a trade (the positions changed) without scanning the HIP-3 dexes", async () => {
    const ex = new FakeAccount();
    const row = await registered(ex);
    ex.main().positions = [
      { coin: "BTC", szi: "0.1", entryPx: "60000", unrealizedPnl: "-3", fundingSinceOpen: "0" },
    ];
    ex.main().accountValue = "994"; // fee 3 and 3 of spread
    expect(await step(ex, row)).toBe(22);
    expect(row.netDeposits).toBe("0");
    expect(row.positionsCount).toBe(1);
    expect(await step(ex, row)).toBe(2);
  });

  it("follows a HIP-3 dex only while it holds value; margin moved to one not followed is found by a scan", async () => {
    const ex = new FakeAccount();
    ex.dexes.set("xyz", { accountValue: "200", positions: [] });
    const row = await registered(ex);
    expect(row.tracking?.dexes).toEqual(["xyz"]);
    expect(await step(ex, row)).toBe(4); // main + xyz, not abc
    // 300 of margin moves from the main dex to an isolated position on `abc`, with no ledger entry.
    ex.main().accountValue = "700";
    ex.dexes.set("abc", {
      accountValue: "300",
      positions: [{ coin: "abc:GOLD", szi: "2", entryPx: "150", unrealizedPnl: "0", fundingSinceOpen: "0" }],
    });
    // main + xyz (4), the ledger (20), then every dex (20 for the list + 6)
    expect(await step(ex, row)).toBe(4 + 20 + 20 + 6);
    expect(row.tracking?.dexes).toEqual(["abc", "xyz"]);
    expect(row.accountValue).toBe("1200");
    expect(row.netDeposits).toBe("0");
    expect(await step(ex, row)).toBe(6);
    // `xyz` emptied into the main dex: a move between dexes followed needs no ledger read.
    ex.dexes.set("xyz", { accountValue: "0", positions: [] });
    ex.main().accountValue = "900";
    ex.entries.push({
      time: 30,
      hash: "0xs",
      delta: {
        type: "send",
        user: ME,
        destination: ME,
        sourceDex: "xyz",
        destinationDex: "",
        token: "USDC",
        amount: "200",
        usdcValue: "200",
      },
    });
    expect(await step(ex, row)).toBe(6);
    expect(row.accountValue).toBe("1200");
    // The next ledger read re-anchors on the dexes holding value: `xyz` is no longer asked.
    ex.deposit(40, "10");
    expect(await step(ex, row)).toBe(6 + 20);
    expect(row.netDeposits).toBe("10");
    expect(row.tracking?.dexes).toEqual(["abc"]);
    expect(await step(ex, row)).toBe(4);
  });

  it("scans every HIP-3 dex once per SCAN_EVERY_MS whatever the account shows", async () => {
    const ex = new FakeAccount();
    const row = await registered(ex, 0);
    expect(await step(ex, row, SCAN_EVERY_MS - 1)).toBe(2);
    expect(await step(ex, row, SCAN_EVERY_MS)).toBe(20 + 6);
    expect(await step(ex, row, SCAN_EVERY_MS + 1000)).toBe(2);
  });

  it("an agent stored before tracking existed is read in full once, its deposits recounted from registration", async () => {
    const ex = new FakeAccount();
    const row = await registered(ex);
    row.tracking = null;
    row.ledgerMark = null;
    ex.deposit(10, "40");
    expect(await step(ex, row)).toBe(20 + 6 + 20);
    expect(row.netDeposits).toBe("40");
    expect(await step(ex, row)).toBe(2);
  });
});

describe("ledger cursor", () => {
  it("keeps every hash at the latest time, across reads", () => {
    const a = advanceCursor(null, [
      { time: 1, hash: "a", delta: { type: "deposit" } },
      { time: 2, hash: "b", delta: { type: "deposit" } },
    ]);
    expect(a).toEqual({ timeMs: 2, hashes: ["b"] });
    const b = advanceCursor(a, [
      { time: 2, hash: "b", delta: { type: "deposit" } },
      { time: 2, hash: "c", delta: { type: "deposit" } },
    ]);
    expect(b).toEqual({ timeMs: 2, hashes: ["b", "c"] });
    expect(advanceCursor(b, [])).toBe(b);
  });
});

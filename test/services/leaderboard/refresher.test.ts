import { afterEach, describe, expect, it } from "vitest";
import type { AccountReading, NetworkAccounts } from "../../../src/services/leaderboard/account-source.ts";
import type { LedgerUpdate } from "../../../src/services/leaderboard/ledger.ts";
import { Refresher } from "../../../src/services/leaderboard/refresher.ts";
import { type AgentStore, SqliteAgentStore } from "../../../src/services/leaderboard/store.ts";

const addr = (i: number) => `0x${i.toString(16).padStart(40, "0")}`;

class FakeExchange implements NetworkAccounts {
  values = new Map<string, string>();
  ledgers = new Map<string, LedgerUpdate[]>();
  broken = new Set<string>();
  dexesDown = false;
  calls = 0;
  async hip3Dexes() {
    if (this.dexesDown) throw new Error("perpDexs down");
    return ["xyz"];
  }
  async account(user: string): Promise<AccountReading> {
    this.calls++;
    if (this.broken.has(user)) throw new Error(`boom for ${user}`);
    const accountValue = this.values.get(user) ?? "100";
    return { accountValue, positionsCount: 2, perDex: [{ dex: "", accountValue, positions: [] }] };
  }
  async ledger(user: string): Promise<LedgerUpdate[]> {
    return this.ledgers.get(user) ?? [];
  }
  async close() {}
}

let store: AgentStore;
const opened: AgentStore[] = [];
afterEach(() => {
  for (const s of opened.splice(0)) void s.close();
});

function setup(n: number, exchangeReads = true) {
  store = new SqliteAgentStore(":memory:");
  opened.push(store);
  for (let i = 0; i < n; i++) {
    store.insert({
      network: "testnet",
      address: addr(i),
      displayName: `a${i}`,
      initialAccountValue: "100",
      registeredAt: i,
      ledgerMark: { timeMs: 10, hashes: ["0xold"] },
      positionsCount: 0,
    });
  }
  const ex = new FakeExchange();
  const refresher = new Refresher({
    store,
    source: () => ex,
    networks: ["testnet"],
    intervalMs: 60_000,
    concurrency: 3,
    agentTimeoutMs: 1000,
    staggerMs: 0,
    exchangeReads,
  });
  return { ex, refresher };
}

describe("leaderboard refresher", () => {
  it("updates every agent, marks failures stale with their last values, and joins a running cycle", async () => {
    const { ex, refresher } = setup(5);
    ex.values.set(addr(1), "150");
    ex.ledgers.set(addr(1), [
      { time: 10, hash: "0xold", delta: { type: "deposit", usdc: "100" } },
      { time: 20, hash: "0xnew", delta: { type: "deposit", usdc: "30" } },
    ]);
    const first = refresher.cycle();
    expect(refresher.cycle()).toBe(first);
    const [report] = await first;
    expect(report).toMatchObject({ network: "testnet", agents: 5, failed: 0 });
    expect(ex.calls).toBe(5);
    const top = (await refresher.board("testnet")).entries[0]!;
    expect(top).toMatchObject({
      address: addr(1),
      pnl: 50,
      net_deposits: 30,
      pnl_adjusted: 20,
      positions_count: 2,
    });

    ex.broken.add(addr(1));
    ex.values.set(addr(2), "90");
    await refresher.cycle();
    const board = await refresher.board("testnet");
    expect(board.entries.find((e) => e.address === addr(1))).toMatchObject({ stale: true, pnl: 50 });
    expect(board.entries.find((e) => e.address === addr(2))).toMatchObject({ pnl: -10 });
    expect(board.entries.filter((e) => e.stale)).toHaveLength(1);
  });

  it("with refresh workers it reads nothing from the exchange: a cycle republishes what the workers stored", async () => {
    const { ex, refresher } = setup(3, false);
    await store.recordSuccess("testnet", addr(1), {
      accountValue: "175",
      positionsCount: 1,
      netDeposits: "0",
      at: 5,
    });
    const [report] = await refresher.cycle();
    expect(report).toMatchObject({ agents: 3, failed: 0 });
    expect(ex.calls).toBe(0);
    expect((await refresher.board("testnet")).entries[0]).toMatchObject({ address: addr(1), pnl: 75 });
  });

  it("marks the whole network stale when the dex list cannot be read", async () => {
    const { ex, refresher } = setup(3);
    ex.dexesDown = true;
    const [report] = await refresher.cycle();
    expect(report?.failed).toBe(3);
    expect((await refresher.board("testnet")).entries.every((e) => e.stale)).toBe(true);
    expect((await store.get("testnet", addr(0)))?.lastError).toMatch(
      /^Failed to query Hyperliquid: perpDexs down/,
    );
  });

  it("shows a registration at once on a small board and coalesces rebuilds of a large one", async () => {
    const { refresher } = setup(1500);
    await refresher.rebuild("testnet");
    const add = (i: number) =>
      store.insert({
        network: "testnet",
        address: addr(10_000 + i),
        displayName: "new",
        initialAccountValue: "1",
        registeredAt: 10_000 + i,
        ledgerMark: null,
        positionsCount: 0,
      });
    await add(1);
    await refresher.agentAdded("testnet"); // right after a build: deferred
    await add(2);
    await refresher.agentAdded("testnet"); // coalesced with the pending one
    expect((await refresher.board("testnet")).total).toBe(1500);
    // The deferred rebuild comes at most 20 build-durations after the last one.
    const until = Date.now() + 25_000;
    while ((await refresher.board("testnet")).total === 1500 && Date.now() < until)
      await new Promise((r) => setTimeout(r, 5));
    expect((await refresher.board("testnet")).total).toBe(1502);
    await refresher.stop();

    const small = setup(2);
    await small.refresher.rebuild("testnet");
    await store.insert({
      network: "testnet",
      address: addr(99),
      displayName: "x",
      initialAccountValue: "1",
      registeredAt: 99,
      ledgerMark: null,
      positionsCount: 0,
    });
    await small.refresher.agentAdded("testnet");
    expect((await small.refresher.board("testnet")).total).toBe(3);
  });

  it("another replica's change: the board is rebuilt when its ranking moved, and kept (same ETag) when not", async () => {
    const { refresher } = setup(3);
    const served = await refresher.board("testnet");
    await refresher.changed("testnet"); // nothing moved
    expect(await refresher.board("testnet")).toBe(served);

    await store.recordSuccess("testnet", addr(2), {
      accountValue: "130",
      positionsCount: 1,
      netDeposits: "0",
      at: 1,
    });
    await refresher.changed("testnet");
    const moved = await refresher.board("testnet");
    expect(moved.etag).not.toBe(served.etag);
    expect(moved.entries[0]).toMatchObject({ address: addr(2), pnl: 30 });
  });

  it("a replica that is not the writer neither reads the exchange nor records anything in its cycles", async () => {
    const { ex, refresher } = setup(2);
    ex.values.set(addr(0), "150");
    refresher.setWriter(null);
    await refresher.cycle();
    expect(ex.calls).toBe(0);
    expect((await store.get("testnet", addr(0)))?.accountValue).toBe("100");
    refresher.setWriter(store);
    await refresher.cycle();
    expect((await store.get("testnet", addr(0)))?.accountValue).toBe("150");
  });
});

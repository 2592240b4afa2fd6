import { afterEach, describe, expect, it, vi } from "vitest";
import { isInBackground } from "../../../src/exchange/background.ts";
import type { AccountReading, NetworkAccounts } from "../../../src/services/leaderboard/account-source.ts";
import { boardJson } from "../../../src/services/leaderboard/board.ts";
import type { LedgerUpdate } from "../../../src/services/leaderboard/ledger.ts";
import { Refresher } from "../../../src/services/leaderboard/refresher.ts";
import { type AgentStore, SqliteAgentStore } from "../../../src/services/leaderboard/store.ts";

const compressions = vi.hoisted(() => ({ efforts: [] as string[] }));
vi.mock("../../../src/services/leaderboard/encodings.ts", async (original) => {
  const real = await original<typeof import("../../../src/services/leaderboard/encodings.ts")>();
  return {
    ...real,
    compressBoth: (body: Buffer, effort: "fast" | "small" = "small") => {
      compressions.efforts.push(effort);
      return real.compressBoth(body, effort);
    },
  };
});

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
  const refresher = new Refresher({ ...refresherOptions(ex), store, exchangeReads });
  return { ex, refresher };
}

function refresherOptions(ex = new FakeExchange()) {
  return {
    store,
    source: () => ex,
    networks: ["testnet"] as const,
    intervalMs: 60_000,
    concurrency: 3,
    agentTimeoutMs: 1000,
    staggerMs: 0,
  };
}

describe("leaderboard refresher", () => {
  it("reads accounts as foreground reads of its process, not behind other processes' scans", async () => {
    // Under hl up the weight broker queues every process's background reads together: behind WOLF's
    // scan, a cycle's reads waited past their timeout and every agent failed (5 of 5, cycle after cycle).
    const { ex, refresher } = setup(3);
    const background: boolean[] = [];
    const account = ex.account.bind(ex);
    ex.account = async (user: string) => {
      background.push(isInBackground());
      return account(user);
    };
    await refresher.cycle();
    expect(background).toEqual([false, false, false]);
  });

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

  it("a cycle cut short by the stop (its reads given up) leaves the agents in hand unmarked", async () => {
    const { ex, refresher } = setup(3);
    let giveUp: () => void = () => undefined;
    const stopping = new Promise<void>((r) => {
      giveUp = r;
    });
    let reading = 0;
    // Reads waiting for request weight, given up when the service stops (as serveUntilStopped does).
    ex.account = async () => {
      reading++;
      await stopping;
      throw new Error("info given up: its caller stopped while it waited for weight");
    };
    const cycle = refresher.cycle();
    while (reading < 3) await new Promise((r) => setTimeout(r, 5));
    const stopped = refresher.stop();
    giveUp();
    await stopped;
    await cycle;
    expect((await refresher.board("testnet")).entries.filter((e) => e.stale)).toEqual([]);
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

  it("follows the store by the rows that changed: a registration on a large board moves one row", async () => {
    const { refresher } = setup(1500);
    const before = await refresher.rebuild("testnet");
    const add = (i: number, value: string) =>
      store.insert({
        network: "testnet",
        address: addr(10_000 + i),
        displayName: "new",
        initialAccountValue: value,
        registeredAt: 10_000 + i,
        ledgerMark: null,
        positionsCount: 0,
      });
    await add(1, "1");
    const list = store.list.bind(store);
    let fullReads = 0;
    store.list = async (n) => {
      fullReads++;
      return list(n);
    };
    const snapshot = store.snapshot.bind(store);
    store.snapshot = async (n) => {
      fullReads++;
      return snapshot(n);
    };
    const after = await refresher.catchUp("testnet");
    expect(after.total).toBe(1501);
    expect(fullReads).toBe(0);
    // Ranked as a full build ranks it, entries above the new one untouched.
    const fresh = await new Refresher({ ...refresherOptions(), store }).rebuild("testnet");
    expect(after.entryJson).toEqual(fresh.entryJson);
    expect(after.body.toString()).toBe(boardJson(after, 0, after.total));
    expect(JSON.parse(after.body.toString()).agents[1500].rank).toBe(1501);
    expect(after.entryJson.slice(0, 1500)).toEqual(before.entryJson);

    // Calls during a read fold into one more; nothing new keeps the served board.
    await add(2, "1");
    await add(3, "1");
    const [a, b, c] = await Promise.all([
      refresher.catchUp("testnet"),
      refresher.catchUp("testnet"),
      refresher.catchUp("testnet"),
    ]);
    expect(a.total).toBe(1503);
    expect(b).toBe(c);
    expect(await refresher.catchUp("testnet")).toBe(await refresher.board("testnet"));
    await refresher.stop();
  });

  it("another replica's change: the board is rebuilt when its ranking moved, and kept (same ETag) when not", async () => {
    const { refresher } = setup(3);
    const served = await refresher.board("testnet");
    await refresher.catchUp("testnet"); // nothing moved
    expect(await refresher.board("testnet")).toBe(served);

    await store.recordSuccess("testnet", addr(2), {
      accountValue: "130",
      positionsCount: 1,
      netDeposits: "0",
      at: 1,
    });
    await refresher.catchUp("testnet");
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

  it("a burst of changes: each board is served gzip-compressed at once, the smaller copies made once it settles", async () => {
    // Large enough to be compressed (1 KB and up).
    setup(40);
    const refresher = new Refresher({ ...refresherOptions(), store, settleMs: 250 });
    await (await refresher.board("testnet")).compressed;
    compressions.efforts.length = 0;
    let board = await refresher.board("testnet");
    for (let i = 0; i < 8; i++) {
      await store.recordSuccess("testnet", addr(i), {
        accountValue: String(200 + i),
        positionsCount: 1,
        netDeposits: "0",
        at: 1,
      });
      board = await refresher.catchUp("testnet");
      expect(board.entries[0]!.address).toBe(addr(i));
      expect(board.gzip, `change ${i}`).toBeDefined();
    }
    await board.compressed;
    // Only the board that stays is compressed the slow, small way (the first of the burst too, when
    // the machine is slow enough that it came more than settleMs after the board before); none of
    // the boards of the burst paid for brotli or for both encodings at once.
    expect(compressions.efforts.filter((e) => e !== "small")).toEqual([]);
    expect(compressions.efforts.length).toBeGreaterThanOrEqual(1);
    expect(compressions.efforts.length).toBeLessThanOrEqual(2);
    expect(board.brotli).toBeDefined();
    expect(await refresher.board("testnet")).toBe(board);
  });
});

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AccountPnlWatch, accountPnlOf, REGISTRATION_FILE } from "../../../src/services/agent/account-pnl.ts";
import type { StatusObject } from "../../../src/services/agent/status-reader.ts";
import type { AccountReading, NetworkAccounts } from "../../../src/services/leaderboard/account-source.ts";
import { BoardBuilder } from "../../../src/services/leaderboard/board.ts";
import type { AgentRow } from "../../../src/services/leaderboard/store.ts";
import { startTestAgent, tempDataDir, testMappers, waitFor } from "./helpers.ts";

const ADDRESS = "0x00000000000000000000000000000000000000a1";
const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), "account-pnl-"));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const reading = (accountValue: string, timeMs?: number): AccountReading => ({
  accountValue,
  positionsCount: 1,
  perDex: [],
  ...(timeMs === undefined ? {} : { timeMs }),
});

function row(accountValue: string, initialAccountValue: string): AgentRow {
  return {
    network: "paper",
    address: ADDRESS,
    displayName: "WOLF agent",
    initialAccountValue,
    registeredAt: 1,
    ledgerMark: null,
    accountValue,
    positionsCount: 1,
    netDeposits: "0",
    refreshedAt: 2,
    stale: false,
    lastError: null,
    tracking: null,
  };
}

describe("the dashboard's account PnL", () => {
  it("is the leaderboard's PnL of the same account reading, to the cent", () => {
    const baseline = "10000";
    // Half-cent cases included: both round half to even the same exact decimal.
    for (const value of ["9387.255", "9387.265", "10000", "10412.0049", "9999.995", "12.3"]) {
      const board = new BoardBuilder().build([row(value, baseline)], "paper", 0).entries[0]!;
      const reg = { network: "paper", address: ADDRESS, initial_account_value: baseline };
      const mine = accountPnlOf(reading(value), reg, 0);
      expect(mine.account_pnl, value).toBe(board.pnl);
      expect(mine.account_value).toBe(board.account_value);
    }
  });

  it("reads the exchange only once registered, from the registration's baseline, at the exchange's clock", async () => {
    const dir = tmp();
    let connects = 0;
    let value = "10100.5";
    const accounts: NetworkAccounts = {
      hip3Dexes: async () => [],
      account: async (user) => {
        expect(user).toBe(ADDRESS);
        return reading(value, 5_000_000);
      },
      ledger: async () => [],
      close: async () => undefined,
    };
    const watch = new AccountPnlWatch(
      dir,
      async () => {
        connects++;
        return accounts;
      },
      { intervalMs: 0 },
    );
    await watch.sample();
    expect(watch.latest()).toBeNull();
    expect(connects).toBe(0);
    writeFileSync(
      join(dir, REGISTRATION_FILE),
      JSON.stringify({ network: "paper", address: ADDRESS, initial_account_value: "10000.25" }),
    );
    await watch.sample();
    expect(watch.latest()).toEqual({
      account_pnl: 100.25,
      account_value: 10100.5,
      initial_account_value: 10000.25,
      read_at_ms: 5_000_000,
    });
    value = "9990";
    await watch.sample();
    expect(watch.latest()?.account_pnl).toBe(-10.25);
    expect(connects).toBe(1);
    await watch.close();
  });
});

describe("the dashboard's clock", () => {
  it("stamps the chart's points on the exchange's clock: sim time when the sim runs ahead of the wall clock", async () => {
    const dataDir = tempDataDir();
    dirs.push(dataDir);
    writeFileSync(
      join(dataDir, REGISTRATION_FILE),
      JSON.stringify({ network: "paper", address: ADDRESS, initial_account_value: "10000" }),
    );
    const ahead = 3 * 3_600_000;
    const accounts: NetworkAccounts = {
      hip3Dexes: async () => [],
      account: async () => reading("10012.5", Date.now() + ahead),
      ledger: async () => [],
      close: async () => undefined,
    };
    const { svc, base } = await startTestAgent(
      { DATA_DIR: dataDir },
      {
        accounts: async () => accounts,
        mappers: {
          ...testMappers,
          wolf: (st) => ({ ...testMappers.wolf(st), total_pnl: 1, active_slots: [] }) as StatusObject,
        },
      },
    );
    try {
      type Point = { time_ms: number };
      const get = async <T>(path: string) => (await fetch(`${base}${path}`)).json() as Promise<T>;
      const points = await waitFor(async () => {
        const { points } = await get<{ points: Point[] }>("/api/pnl-history");
        return points.some((p) => p.time_ms > Date.now() + ahead / 2) ? points : undefined;
      });
      // Once the exchange's clock is known, every later point is on it.
      const onSim = points.findIndex((p) => p.time_ms > Date.now() + ahead / 2);
      for (const p of points.slice(onSim)) expect(p.time_ms).toBeGreaterThan(Date.now() + ahead / 2);
      expect((await get<{ account_pnl: number }>("/api/account-pnl")).account_pnl).toBe(12.5);
      // The page asks only for what it has not plotted yet.
      const last = points.at(-1)!.time_ms;
      const later = await get<{ points: Point[] }>(`/api/pnl-history?since_ms=${last}`);
      expect(later.points.every((p) => p.time_ms > last)).toBe(true);
      expect((await fetch(`${base}/api/pnl-history?since_ms=soon`)).status).toBe(400);
    } finally {
      await svc.close();
    }
  });
});

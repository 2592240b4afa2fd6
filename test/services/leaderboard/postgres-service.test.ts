import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { AccountReading, NetworkAccounts } from "../../../src/services/leaderboard/account-source.ts";
import { leaderboardConfig } from "../../../src/services/leaderboard/config.ts";
import { createLeaderboardService } from "../../../src/services/leaderboard/service.ts";
import { usePostgres } from "../../support/postgres.ts";

/** The leaderboard's HTTP API with DATABASE_URL set: registrations land in Postgres, any instance serves them. */

const postgres = usePostgres();
const dir = mkdtempSync(join(tmpdir(), "lb-pg-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const exchange: NetworkAccounts = {
  hip3Dexes: async () => [],
  account: async (): Promise<AccountReading> => ({
    accountValue: "1234.5678",
    positionsCount: 1,
    perDex: [{ dex: "", accountValue: "1234.5678", positions: [] }],
  }),
  ledger: async () => [],
  close: async () => undefined,
};

describe("leaderboard on Postgres", () => {
  it("a registration on one instance is on the board of another; no SQLite file is written", async () => {
    const env = { DATABASE_URL: await postgres.current.freshDatabase(), LEADERBOARD_DB: join(dir, "lb.db") };
    const one = createLeaderboardService(leaderboardConfig(env), { source: () => exchange });
    const two = createLeaderboardService(leaderboardConfig(env), { source: () => exchange });
    try {
      const address = `0x${"ab".repeat(20)}`;
      const reg = await one.app.inject({
        method: "POST",
        url: "/api/register",
        payload: { address, display_name: "pg agent" },
      });
      expect(reg.statusCode, reg.body).toBe(200);
      expect(reg.json()).toMatchObject({ new: true, initial_account_value: 1234.5678 });
      const again = await two.app.inject({ method: "POST", url: "/api/register", payload: { address } });
      expect(again.json()).toMatchObject({ new: false, initial_account_value: 1234.5678 });

      const board = (await two.app.inject({ method: "GET", url: "/api/leaderboard?network=testnet" })).json();
      expect(board.total_agents).toBe(1);
      expect(board.agents[0]).toMatchObject({ address, display_name: "pg agent", account_value: 1234.5678 });
      expect(existsSync(join(dir, "lb.db"))).toBe(false);
    } finally {
      await one.close();
      await two.close();
    }
  });
});

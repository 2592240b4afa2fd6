import { listen } from "../../src/http/service.ts";
import type { AccountReading } from "../../src/services/leaderboard/account-source.ts";
import { leaderboardConfig } from "../../src/services/leaderboard/config.ts";
import { createLeaderboardService } from "../../src/services/leaderboard/service.ts";

/**
 * One leaderboard replica on Postgres (DATABASE_URL) in its own process, as deployed, for the
 * cross-replica benchmark. A registration's account value is read from a stand-in exchange (a value
 * derived from the address, so new agents land anywhere in the ranking); the refresh period is far
 * beyond the run, so only registrations change the board. Prints its port once its board is built.
 */
const config = leaderboardConfig({
  DATABASE_URL: process.env.DATABASE_URL,
  LEADERBOARD_REFRESH_S: "3600",
  LEADERBOARD_REGISTER_PER_MIN: "100000",
  LEADERBOARD_REGISTER_BURST: "100000",
});
const reading = (user: string): AccountReading => {
  const value = (Number.parseInt(user.slice(-6), 16) % 20_000).toString();
  return {
    accountValue: value,
    positionsCount: 0,
    perDex: [{ dex: "", accountValue: value, positions: [] }],
  };
};
const svc = createLeaderboardService(config, {
  source: () => ({
    hip3Dexes: async () => [],
    account: async (user) => reading(user),
    ledger: async () => [],
    close: async () => undefined,
  }),
  logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
});
await svc.ready;
const board = await svc.refresher.board("testnet");
const port = await listen(svc.app, 0, "127.0.0.1");
process.stdout.write(`${JSON.stringify({ port, agents: board.total })}\n`);
process.once("SIGTERM", async () => {
  await svc.close();
  process.exit(0);
});

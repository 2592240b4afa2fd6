import { listen } from "../../http/service.ts";
import { portOption } from "../host/port-option.ts";
import {
  type RunningService,
  type ServeContext,
  type ServeOptions,
  serviceLog,
  stringOption,
} from "../host/types.ts";
import { hlAccountSource } from "./account-source.ts";
import { leaderboardConfig } from "./config.ts";
import { createLeaderboardService } from "./service.ts";

/** `hl leaderboard serve`: the API and page, refreshing every registered account. */
export async function serveLeaderboard(opts: ServeOptions, ctx: ServeContext): Promise<RunningService> {
  const config = leaderboardConfig(ctx.env, { port: portOption(stringOption(opts, "port", "--port")) });
  const accounts = await hlAccountSource(config.apiUrls, config.agentTimeoutMs, { env: ctx.env });
  const service = createLeaderboardService(config, {
    source: accounts.source,
    env: ctx.env,
    // One JSON line per event on stderr (elections, outages, refresh cycles, start-up waits).
    logger: serviceLog(ctx, "leaderboard"),
  });
  let port: number;
  try {
    // On Postgres, reached and migrated first (retried while it is not up yet).
    await service.ready;
    port = await listen(service.app, config.port, config.host);
  } catch (err) {
    await service.close();
    await accounts.close();
    throw err;
  }
  service.startRefresh();
  ctx.log(
    `leaderboard on http://${config.host}:${port}/ (refresh every ${config.refreshIntervalMs / 1000} s)`,
  );
  return {
    async close() {
      await service.close();
      await accounts.close();
    },
  };
}

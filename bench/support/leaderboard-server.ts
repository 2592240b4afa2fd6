import { listen } from "../../src/http/service.ts";
import { BoardBuilder } from "../../src/services/leaderboard/board.ts";
import { leaderboardConfig } from "../../src/services/leaderboard/config.ts";
import { compressBoth } from "../../src/services/leaderboard/encodings.ts";
import { createLeaderboardService } from "../../src/services/leaderboard/service.ts";

/**
 * The leaderboard service in its own process for the benchmark, as deployed, over an already
 * seeded LEADERBOARD_DB; prints its port once the testnet board (and its gzip and brotli copies) is built.
 */
const config = leaderboardConfig({ LEADERBOARD_DB: process.env.LEADERBOARD_DB });
const svc = createLeaderboardService(config, {
  source: () => {
    throw new Error("reads only");
  },
});
// The figures apart: ranking and serialising every agent, then the compression the board settles on.
const rows = (await svc.store.snapshot("testnet")).rows;
const t0 = performance.now();
new BoardBuilder().build(rows, "testnet", Date.now());
const rebuildMs = performance.now() - t0;
const board = await svc.refresher.rebuild("testnet");
const t1 = performance.now();
await compressBoth(board.body, "small");
const compressMs = performance.now() - t1;
await board.compressed;
const port = await listen(svc.app, 0, "127.0.0.1");
process.stdout.write(
  `${JSON.stringify({
    port,
    rebuildMs,
    compressMs,
    body: board.body.length,
    gzip: board.gzip?.length ?? null,
    brotli: board.brotli?.length ?? null,
    etag: board.etag,
  })}\n`,
);
process.once("SIGTERM", async () => {
  await svc.close();
  process.exit(0);
});

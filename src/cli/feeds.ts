import type { Command } from "commander";
import { FEED_NAMES } from "../services/feeds/profiles.ts";
import { serveFeeds } from "../services/feeds/serve.ts";
import { processContext } from "../services/host/types.ts";
import { serveUntilStopped } from "./signals.ts";

/** `hl feeds serve`: the SWP price feeds (one origin per feed) and their same-origin proxy. */
export function register(program: Command): void {
  const feeds = program.command("feeds").description("SWP price feeds: excess-funding indices over SSE");
  feeds
    .command("serve")
    .description(
      "Serve the four SWP feeds on FEEDS_PORT+1…+4 and the proxy and feeds page on FEEDS_PORT (8100); --feed serves one feed only",
    )
    .option("--port <port>", "proxy port (with --feed: that feed's port)")
    .option("--feed <name>", `serve only this feed (${FEED_NAMES.join(", ")})`)
    .option("--proxy-only", "serve only the proxy and page, in front of FEEDS_UPSTREAM_<FEED> URLs")
    .option("--network <network>", "mainnet | testnet | paper (default: HL_NETWORK, else paper)")
    .action(async (opts: { port?: string; feed?: string; proxyOnly?: boolean; network?: string }) => {
      await serveUntilStopped(() => serveFeeds(opts, processContext("feeds")));
    });
}

import type { Command } from "commander";
import { resolveNetwork } from "../config/env.ts";
import { UserError } from "../core/errors.ts";
import { openClientSession } from "../exchange/index.ts";
import { feedsConfig } from "../services/feeds/config.ts";
import { FEED_NAMES, type FeedName, isFeedName } from "../services/feeds/profiles.ts";
import { startFeeds } from "../services/feeds/server.ts";
import { exchangeFundingSource } from "../services/feeds/source.ts";

interface ServeOptions {
  port?: string;
  feed?: string;
  proxyOnly?: boolean;
  network?: string;
}

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
    .action(async (opts: ServeOptions) => {
      const cfg = feedsConfig();
      const port = opts.port === undefined ? undefined : Number(opts.port);
      if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port <= 65535))
        throw new UserError(`--port must be a port number, got "${opts.port}"`);
      let only: FeedName | undefined;
      if (opts.feed !== undefined) {
        const name = opts.feed.toLowerCase();
        if (!isFeedName(name))
          throw new UserError(`unknown feed "${opts.feed}" (expected one of ${FEED_NAMES.join(", ")})`);
        only = name;
      }
      if (only && opts.proxyOnly) throw new UserError("--feed and --proxy-only exclude each other");

      const session = opts.proxyOnly
        ? undefined
        : await openClientSession({ network: resolveNetwork(opts.network), paperWallet: false });
      for (const note of session?.notes ?? []) process.stderr.write(`${note}\n`);
      const running = await startFeeds({
        source: session ? exchangeFundingSource(session.client) : undefined,
        dbPath: cfg.dbPath,
        feeds: opts.proxyOnly ? [] : only ? [only] : [...FEED_NAMES],
        basePort: only ? cfg.port : (port ?? cfg.port),
        originPort: only ? port : undefined,
        host: cfg.host,
        proxy: !only,
        upstreams: cfg.upstreams,
        pollMs: cfg.pollMs,
        maxSilenceMs: cfg.maxSilenceMs,
        inceptionMs: cfg.inceptionMs,
      });
      for (const [name, url] of Object.entries(running.origins))
        process.stdout.write(`${name} feed on ${url}\n`);
      if (running.proxyUrl) process.stdout.write(`feeds proxy and page on ${running.proxyUrl}\n`);
      await new Promise<void>((resolve) => {
        const stop = () => resolve();
        process.once("SIGINT", stop);
        process.once("SIGTERM", stop);
      });
      await running.close();
      await session?.close();
    });
}

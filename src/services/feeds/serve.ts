import { resolveNetwork } from "../../config/env.ts";
import { UserError } from "../../core/errors.ts";
import { replicaDbFromEnv, type SharedDb } from "../../db/shared.ts";
import { openClientSession } from "../../exchange/index.ts";
import { portOption } from "../host/port-option.ts";
import { type RunningService, type ServeContext, type ServeOptions, stringOption } from "../host/types.ts";
import { feedsConfig } from "./config.ts";
import { FEED_NAMES, type FeedName, isFeedName } from "./profiles.ts";
import { startFeeds } from "./server.ts";
import { exchangeFundingSource } from "./source.ts";

/** `hl feeds serve`: the four feed origins and their proxy, one feed (`feed`), or the proxy alone. */
export async function serveFeeds(opts: ServeOptions, ctx: ServeContext): Promise<RunningService> {
  const cfg = feedsConfig(ctx.env);
  const port = portOption(stringOption(opts, "port", "--port"));
  const feed = stringOption(opts, "feed", "--feed");
  const proxyOnly = opts.proxyOnly === true;
  let only: FeedName | undefined;
  if (feed !== undefined) {
    const name = feed.toLowerCase();
    if (!isFeedName(name))
      throw new UserError(`unknown feed "${feed}" (expected one of ${FEED_NAMES.join(", ")})`);
    only = name;
  }
  if (only && proxyOnly) throw new UserError("--feed and --proxy-only exclude each other");

  const network = resolveNetwork(stringOption(opts, "network", "--network"), ctx.env);
  const session = proxyOnly
    ? undefined
    : await openClientSession({
        network,
        paperWallet: false,
        env: ctx.env,
      });
  for (const note of session?.notes ?? []) ctx.warn(note);
  let running: Awaited<ReturnType<typeof startFeeds>>;
  let shared: SharedDb | undefined;
  try {
    shared = proxyOnly ? undefined : await replicaDbFromEnv(ctx.env, ctx.warn);
    running = await startFeeds({
      shared,
      source: session ? exchangeFundingSource(session.client) : undefined,
      dbPath: cfg.dbPath,
      feeds: proxyOnly ? [] : only ? [only] : [...FEED_NAMES],
      basePort: only ? cfg.port : (port ?? cfg.port),
      originPort: only ? port : undefined,
      host: cfg.host,
      proxy: !only,
      upstreams: cfg.upstreams,
      pollMs: cfg.pollMs,
      maxSilenceMs: cfg.maxSilenceMs,
      inceptionMs: cfg.inceptionMs,
      network,
      log: ctx.warn,
    });
  } catch (err) {
    await shared?.close();
    await session?.close();
    throw err;
  }
  for (const [name, url] of Object.entries(running.origins)) ctx.log(`${name} feed on ${url}`);
  if (shared)
    ctx.log("feeds on Postgres (DATABASE_URL): each feed is written by the replica elected its writer");
  if (running.proxyUrl) ctx.log(`feeds proxy and page on ${running.proxyUrl}`);
  return {
    async close() {
      await running.close();
      await shared?.close();
      await session?.close();
    },
  };
}

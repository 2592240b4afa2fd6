import { apiUrl, resolveNetwork } from "../../config/env.ts";
import { openClientSession } from "../../exchange/index.ts";
import { portOption } from "../host/port-option.ts";
import {
  type RunningService,
  type ServeContext,
  type ServeOptions,
  serviceLog,
  stringOption,
} from "../host/types.ts";
import { pointsConfig } from "./config.ts";
import { startPoints } from "./server.ts";
import { exchangeFillSource } from "./source.ts";

/** `hl points serve`: the points API under /points and the points page. */
export async function servePoints(opts: ServeOptions, ctx: ServeContext): Promise<RunningService> {
  const network = resolveNetwork(stringOption(opts, "network", "--network"), ctx.env);
  const cfg = pointsConfig(network, apiUrl(network, ctx.env), ctx.env);
  const port = portOption(stringOption(opts, "port", "--port"));
  if (port !== undefined) cfg.port = port;
  const session = await openClientSession({ network, paperWallet: false, env: ctx.env });
  for (const note of session.notes) ctx.warn(note);
  try {
    const running = await startPoints(cfg, {
      fills: exchangeFillSource(session.client),
      env: ctx.env,
      // One JSON line per event on stderr (elections, outages, sync failures, start-up waits).
      logger: serviceLog(ctx, "points"),
    });
    ctx.log(`points API on ${running.url}/points (marks from ${cfg.feedUrl})`);
    return {
      async close() {
        await running.close();
        await session.close();
      },
    };
  } catch (err) {
    await session.close();
    throw err;
  }
}

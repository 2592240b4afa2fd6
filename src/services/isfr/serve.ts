import { resolveNetwork } from "../../config/env.ts";
import { replicaDbFromEnv, type SharedDb } from "../../db/shared.ts";
import { openClientSession } from "../../exchange/index.ts";
import { listen } from "../../http/service.ts";
import { portOption } from "../host/port-option.ts";
import { type RunningService, type ServeContext, type ServeOptions, stringOption } from "../host/types.ts";
import { isfrConfig } from "./config.ts";
import { hlFundingPort } from "./hl-funding.ts";
import { createIsfrService } from "./service.ts";

/** `hl isfr serve`: publish ISFR snapshots and serve the API and page under /isfr. */
export async function serveIsfr(opts: ServeOptions, ctx: ServeContext): Promise<RunningService> {
  const network = resolveNetwork(stringOption(opts, "network", "--network"), ctx.env);
  const port = portOption(stringOption(opts, "port", "--port"));
  const session = await openClientSession({ network, paperWallet: false, env: ctx.env });
  let shared: SharedDb | undefined;
  try {
    shared = await replicaDbFromEnv(ctx.env, ctx.warn);
    // On paper the sim world also stands in for the yields API, so ISFR runs offline.
    const config = isfrConfig(ctx.env, {
      port,
      defaultYieldsUrl: network === "paper" ? `${session.client.apiUrl}/yields` : undefined,
    });
    for (const note of session.notes) ctx.warn(note);
    const service = createIsfrService(config, { funding: hlFundingPort(session.client), shared, network });
    const bound = await listen(service.app, config.port, config.host);
    service.startSnapshots();
    ctx.log(
      `ISFR on http://${config.host}:${bound}/isfr/ (yields: ${config.yieldsUrl}, snapshot every ${config.snapshotIntervalMs / 1000} s)`,
    );
    return {
      async close() {
        await service.close();
        await shared?.close();
        await session.close();
      },
    };
  } catch (err) {
    await shared?.close();
    await session.close();
    throw err;
  }
}

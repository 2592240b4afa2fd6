import { listen } from "../../http/service.ts";
import { BuilderFiles } from "./attribution.ts";
import type { PointsConfig } from "./config.ts";
import { FillHistory } from "./fill-history.ts";
import { createPointsApp } from "./http.ts";
import { MarkRecorder } from "./marks.ts";
import { type DayFiles, type FillSource, PointsService } from "./service.ts";
import { openPointsStore, type PointsStore } from "./store.ts";

export interface RunningPoints {
  url: string;
  service: PointsService;
  recorder: MarkRecorder;
  store: PointsStore;
  close(): Promise<void>;
}

/** Start the points service: mark recorder on the BTCSWP feed, builder files, and the HTTP API. */
export async function startPoints(
  cfg: PointsConfig,
  deps: { fills: FillSource; files?: DayFiles; store?: PointsStore; log?: (line: string) => void },
): Promise<RunningPoints> {
  const log = deps.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const store = deps.store ?? openPointsStore(cfg);
  let lastError = "";
  const recorder = new MarkRecorder(store, {
    feedUrl: cfg.feedUrl,
    fromMs: cfg.programStartMs,
    onError: (err) => {
      const message = err instanceof Error ? err.message : String(err);
      if (message !== lastError) log(`points: BTCSWP feed ${cfg.feedUrl}: ${message}`);
      lastError = message;
    },
  });
  recorder.start();
  const files =
    deps.files ??
    new BuilderFiles({
      statsUrl: cfg.statsUrl,
      statsNetwork: cfg.statsNetwork,
      coin: cfg.coin,
      missingTtlMs: cfg.missingFileRetryMs,
    });
  const history = new FillHistory(store, cfg.coin);
  const service = new PointsService(cfg, { fills: deps.fills, files, marks: store, history });
  let following = false;
  const follower =
    cfg.followMs > 0
      ? setInterval(() => {
          if (following) return;
          following = true;
          service
            .followAll((user, err) =>
              log(`points: fills of ${user}: ${err instanceof Error ? err.message : String(err)}`),
            )
            .finally(() => {
              following = false;
            });
        }, cfg.followMs)
      : undefined;
  follower?.unref();
  const { app } = createPointsApp(service);
  try {
    const port = await listen(app, cfg.port, cfg.host);
    return {
      url: `http://${cfg.host}:${port}`,
      service,
      recorder,
      store,
      async close() {
        clearInterval(follower);
        recorder.close();
        await app.close();
        await store.close();
      },
    };
  } catch (err) {
    clearInterval(follower);
    recorder.close();
    await store.close();
    throw err;
  }
}

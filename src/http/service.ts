import type { Registry } from "prom-client";
import { createHttpApp, type HttpApp, type HttpAppOptions } from "./app.ts";
import { HttpError } from "./errors.ts";
import type { ServiceMetrics } from "./metrics.ts";

export { HttpError };

type ServiceOptions = HttpAppOptions;

export interface Service {
  app: HttpApp;
  /** prom-client's registry for the service's own metrics (reading it loads prom-client). */
  readonly metrics: Registry;
  /** The service's metrics, without loading prom-client until scraped. */
  meter: ServiceMetrics;
}

/** A service on the platform's one HTTP stack (HttpApp), with its metrics at hand. */
export function createService(opts: ServiceOptions): Service {
  const app = createHttpApp(opts);
  return {
    app,
    meter: app.meter,
    get metrics() {
      return app.meter.registry;
    },
  };
}

/** Listen and return the bound port (port 0 picks a free one). */
export function listen(app: HttpApp, port: number, host = "127.0.0.1"): Promise<number> {
  return app.listen(port, host);
}

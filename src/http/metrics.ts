import type { IncomingMessage, ServerResponse } from "node:http";
import { Counter, collectDefaultMetrics, Histogram, Registry } from "prom-client";

/**
 * The metrics every service exposes at /metrics, under the same names everywhere (docs/grafana-
 * dashboard.json reads them): prom-client's process_* and nodejs_* defaults, and the request count
 * and latency per route. Each series carries a `service` label naming the service.
 */
export interface ServiceMetrics {
  registry: Registry;
  /** Record one answered request; `route` is the route pattern, never the raw path (bounded labels). */
  observe(method: string, route: string, status: number, seconds: number): void;
}

export function serviceMetrics(service: string): ServiceMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: "http_requests_total",
    help: "HTTP requests answered, by method, route and status code",
    labelNames: ["method", "route", "status_code"],
    registers: [registry],
  });
  const duration = new Histogram({
    name: "http_request_duration_seconds",
    help: "Time to answer an HTTP request, by method and route",
    labelNames: ["method", "route"],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  return {
    registry,
    observe(method, route, status, seconds) {
      requests.inc({ method, route, status_code: String(status) });
      duration.observe({ method, route }, seconds);
    },
  };
}

/**
 * For a plain node:http server: counts `req` under `route` once answered, and answers it when it is
 * GET /metrics (true), so the caller stops there.
 */
export function meterRequest(
  metrics: ServiceMetrics,
  req: IncomingMessage,
  res: ServerResponse,
  route: string,
): boolean {
  const started = process.hrtime.bigint();
  res.once("finish", () =>
    metrics.observe(
      req.method ?? "GET",
      route,
      res.statusCode,
      Number(process.hrtime.bigint() - started) / 1e9,
    ),
  );
  if (route !== "/metrics" || req.method !== "GET") return false;
  metrics.registry.metrics().then(
    (text) => {
      res.writeHead(200, { "content-type": metrics.registry.contentType });
      res.end(text);
    },
    () => {
      res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: "metrics unavailable" }));
    },
  );
  return true;
}

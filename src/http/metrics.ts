import type { IncomingMessage, ServerResponse } from "node:http";
import { createRequire } from "node:module";
import type { Registry } from "prom-client";

type PromClient = typeof import("prom-client");

/** Prometheus text exposition format 0.0.4 (what prom-client answers too). */
export const METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/** A label value as the exposition format writes it. */
function escapeLabel(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"');
}

function labelText(labels: readonly [string, string][]): string {
  return `{${labels.map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(",")}}`;
}

interface DurationSeries {
  method: string;
  route: string;
  buckets: number[];
  sum: number;
  count: number;
}

/**
 * The request count and latency per route, kept in plain maps: counted from the first request, while
 * prom-client (with its process and runtime collectors) loads only when /metrics is first asked for.
 */
class RequestMetrics {
  private readonly requests = new Map<string, { method: string; route: string; status: string; n: number }>();
  private readonly durations = new Map<string, DurationSeries>();

  observe(method: string, route: string, status: number, seconds: number): void {
    const code = String(status);
    const rKey = `${method} ${route} ${code}`;
    const r = this.requests.get(rKey);
    if (r) r.n += 1;
    else this.requests.set(rKey, { method, route, status: code, n: 1 });
    const dKey = `${method} ${route}`;
    let d = this.durations.get(dKey);
    if (!d) {
      d = { method, route, buckets: DURATION_BUCKETS.map(() => 0), sum: 0, count: 0 };
      this.durations.set(dKey, d);
    }
    for (let i = 0; i < DURATION_BUCKETS.length; i++) if (seconds <= DURATION_BUCKETS[i]!) d.buckets[i]! += 1;
    d.sum += seconds;
    d.count += 1;
  }

  text(service: string): string {
    const svc: [string, string] = ["service", service];
    const lines = [
      "# HELP http_requests_total HTTP requests answered, by method, route and status code",
      "# TYPE http_requests_total counter",
    ];
    for (const r of this.requests.values())
      lines.push(
        `http_requests_total${labelText([["method", r.method], ["route", r.route], ["status_code", r.status], svc])} ${r.n}`,
      );
    lines.push(
      "",
      "# HELP http_request_duration_seconds Time to answer an HTTP request, by method and route",
      "# TYPE http_request_duration_seconds histogram",
    );
    for (const d of this.durations.values()) {
      const labels: [string, string][] = [["method", d.method], ["route", d.route], svc];
      DURATION_BUCKETS.forEach((le, i) => {
        lines.push(
          `http_request_duration_seconds_bucket${labelText([["le", String(le)], ...labels])} ${d.buckets[i]}`,
        );
      });
      lines.push(
        `http_request_duration_seconds_bucket${labelText([["le", "+Inf"], ...labels])} ${d.count}`,
        `http_request_duration_seconds_sum${labelText(labels)} ${d.sum}`,
        `http_request_duration_seconds_count${labelText(labels)} ${d.count}`,
      );
    }
    return `${lines.join("\n")}\n`;
  }
}

/**
 * The metrics every service exposes at /metrics, under the same names everywhere (docs/grafana-
 * dashboard.json reads them): prom-client's process_* and nodejs_* defaults, the request count and
 * latency per route, and each service's own. Each series carries a `service` label naming the service.
 */
export class ServiceMetrics {
  private readonly requests = new RequestMetrics();
  private prom: Registry | undefined;
  private readonly pending: ((prom: PromClient, registry: Registry) => void)[] = [];

  constructor(readonly service: string) {}

  /** Record one answered request; `route` is the route pattern, never the raw path (bounded labels). */
  observe(method: string, route: string, status: number, seconds: number): void {
    this.requests.observe(method, route, status, seconds);
  }

  /** prom-client's registry for this service's own metrics; the library loads on first use. */
  get registry(): Registry {
    if (!this.prom) {
      const prom = createRequire(import.meta.url)("prom-client") as PromClient;
      const registry = new prom.Registry();
      registry.setDefaultLabels({ service: this.service });
      prom.collectDefaultMetrics({ register: registry });
      this.prom = registry;
      for (const add of this.pending.splice(0)) add(prom, registry);
    }
    return this.prom;
  }

  /**
   * Metrics read only when scraped (gauges with `collect`): registered once the registry exists, so
   * a service nobody scrapes never loads prom-client for them.
   */
  whenLoaded(add: (prom: PromClient, registry: Registry) => void): void {
    if (this.prom) add(createRequire(import.meta.url)("prom-client") as PromClient, this.prom);
    else this.pending.push(add);
  }

  /** The whole exposition, as /metrics answers it. */
  async text(): Promise<string> {
    return `${await this.registry.metrics()}\n${this.requests.text(this.service)}`;
  }
}

export function serviceMetrics(service: string): ServiceMetrics {
  return new ServiceMetrics(service);
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
  metrics.text().then(
    (text) => {
      res.writeHead(200, { "content-type": METRICS_CONTENT_TYPE });
      res.end(text);
    },
    () => {
      res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: "metrics unavailable" }));
    },
  );
  return true;
}

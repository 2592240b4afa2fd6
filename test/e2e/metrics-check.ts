import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";

/** The metric names the Grafana dashboard (docs/grafana-dashboard.json) queries. */
export function dashboardMetrics(): string[] {
  const dashboard = JSON.parse(
    readFileSync(join(import.meta.dirname, "../../docs/grafana-dashboard.json"), "utf8"),
  ) as { panels: { targets: { expr: string }[] }[] };
  const names = new Set<string>();
  for (const panel of dashboard.panels)
    for (const { expr } of panel.targets) {
      // Every selector in the dashboard names its metric before a `{…}` matcher.
      const found = [...expr.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\{/g)].map((m) => m[1]!);
      expect(found.length, expr).toBeGreaterThan(0);
      for (const name of found) names.add(name);
    }
  return [...names];
}

/** Metric names in a Prometheus text exposition: declared (# TYPE) and sampled. */
export function exposedMetrics(text: string): Set<string> {
  const names = new Set<string>();
  for (const line of text.split("\n")) {
    const declared = /^# TYPE (\S+) /.exec(line);
    if (declared) names.add(declared[1]!);
    const sampled = /^([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ]/.exec(line);
    if (sampled) names.add(sampled[1]!);
  }
  return names;
}

/**
 * Every service `hl up` runs answers /metrics with the common names under its own `service` label,
 * and every metric the dashboard queries exists on some service.
 */
export async function checkMetrics(bases: Record<string, string>): Promise<void> {
  const all = new Set<string>();
  for (const [service, base] of Object.entries(bases)) {
    const res = await fetch(`${base}/metrics`);
    expect(res.status, `${service} /metrics`).toBe(200);
    const text = await res.text();
    const names = exposedMetrics(text);
    for (const common of [
      "http_requests_total",
      "process_resident_memory_bytes",
      "nodejs_eventloop_lag_p99_seconds",
    ])
      expect(names.has(common), `${service} exposes ${common}`).toBe(true);
    expect(text, service).toMatch(/process_resident_memory_bytes\{service="[a-z-]+"\}/);
    for (const name of names) all.add(name);
  }
  for (const name of dashboardMetrics()) expect(all.has(name), `dashboard metric ${name}`).toBe(true);
}

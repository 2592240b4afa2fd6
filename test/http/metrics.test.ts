import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json } from "../../src/http/reply.ts";
import { createService } from "../../src/http/service.ts";
import { exposedMetrics } from "../e2e/metrics-check.ts";

/**
 * /metrics of a service built on createService: requests answered before the first scrape are
 * counted (the counters do not wait for prom-client to load), the exposition parses, and metrics a
 * service registers for scraping appear once scraped.
 */
const { app, meter } = createService({ name: "probe" });
let base = "";
let reads = 0;
meter.whenLoaded((prom, registry) => {
  new prom.Gauge({
    name: "probe_reads",
    help: "Reads of the probe gauge",
    registers: [registry],
    collect() {
      reads += 1;
      this.set(reads);
    },
  });
});
app.get("/ok", () => json({ ok: true }));

beforeAll(async () => {
  base = `http://127.0.0.1:${await app.listen(0)}`;
});

afterAll(async () => {
  await app.close();
});

describe("service metrics", () => {
  it("counts every request from the first, with the latency histogram, under the service label", async () => {
    for (let i = 0; i < 3; i++) await (await fetch(`${base}/ok`)).text();
    await (await fetch(`${base}/nope`)).text();
    const res = await fetch(`${base}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    const text = await res.text();
    expect(text).toContain(
      'http_requests_total{method="GET",route="/ok",status_code="200",service="probe"} 3',
    );
    expect(text).toContain(
      'http_requests_total{method="GET",route="unmatched",status_code="404",service="probe"} 1',
    );
    expect(text).toContain(
      'http_request_duration_seconds_bucket{le="+Inf",method="GET",route="/ok",service="probe"} 3',
    );
    expect(text).toMatch(
      /http_request_duration_seconds_count\{method="GET",route="\/ok",service="probe"\} 3\n/,
    );
    // cumulative buckets never decrease
    const buckets = [
      ...text.matchAll(
        /http_request_duration_seconds_bucket\{le="[^"]+",method="GET",route="\/ok"[^}]*\} (\d+)/g,
      ),
    ].map((m) => Number(m[1]));
    expect(buckets.length).toBe(12);
    for (let i = 1; i < buckets.length; i++) expect(buckets[i]).toBeGreaterThanOrEqual(buckets[i - 1]!);
    const names = exposedMetrics(text);
    for (const name of ["process_resident_memory_bytes", "nodejs_eventloop_lag_p99_seconds", "probe_reads"])
      expect(names.has(name), name).toBe(true);
    expect(text).toMatch(/probe_reads\{service="probe"\} 1/);
  });

  it("the second scrape counts the first one and reads the scraped gauge again", async () => {
    const text = await (await fetch(`${base}/metrics`)).text();
    expect(text).toMatch(
      /http_requests_total\{method="GET",route="\/metrics",status_code="200",service="probe"\} 1/,
    );
    expect(text).toMatch(/probe_reads\{service="probe"\} 2/);
  });
});

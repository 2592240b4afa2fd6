import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { D } from "../src/core/decimal.ts";
import { listen } from "../src/http/service.ts";
import { methodologyParams } from "../src/services/isfr/catalog.ts";
import { isfrConfig } from "../src/services/isfr/config.ts";
import { computeIsfr, type Reading } from "../src/services/isfr/methodology.ts";
import { createIsfrService } from "../src/services/isfr/service.ts";
import { startSimWorld } from "../src/sim/world.ts";
import { type BenchReporter, percentile } from "./harness.ts";

/** ISFR: the methodology's cost, and API reads (current, a year of hourly OHLC) from the snapshot store. */
export default async function (r: BenchReporter): Promise<void> {
  const params = methodologyParams({ staleAfterMs: 7_200_000 });
  const now = Date.parse("2026-03-01T00:00:00Z");
  const readings = new Map<string, Reading>(
    params.sources.map((s, i) => [s.id, { rate: new D(0.03 + i / 100), observedAtMs: now }]),
  );
  for (let i = 0; i < 200; i++) computeIsfr(params, readings, now);
  const n = 5000;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) computeIsfr(params, readings, now);
  r.figure({
    name: "ISFR computation (6 sources)",
    value: ((performance.now() - t0) * 1000) / n,
    unit: "µs",
  });

  const dir = mkdtempSync(join(tmpdir(), "isfr-bench-"));
  // The per-IP weight limit is off: it reads as fast as it can, past one IP's 1200 weight a minute.
  const world = await startSimWorld({ ipWeightLimit: false, port: 0, seed: 2, houseMakers: false });
  const clock = { t: now - 365 * 86_400_000 };
  const svc = createIsfrService(isfrConfig({ DATA_DIR: dir, YIELDS_API_URL: `${world.url}/yields` }), {
    funding: {
      hourlyFunding: async () =>
        new Map([
          ["BTC", "0.0000125"],
          ["ETH", "0.00001"],
        ]),
    },
    now: () => clock.t,
  });
  try {
    const hours = 24 * 365;
    const s0 = performance.now();
    for (let h = 0; h < hours; h++) {
      await svc.snapshot();
      clock.t += 3_600_000;
    }
    r.figure({
      name: "snapshot (read sources, compute, store)",
      value: (performance.now() - s0) / hours,
      unit: "ms",
    });
    const port = await listen(svc.app, 0);
    const base = `http://127.0.0.1:${port}/isfr/v1/isfr`;
    for (const [label, path] of [
      ["current", "/current"],
      ["OHLC 1D over 365 days (8760 snapshots)", "/ohlc?days=365&interval=1D"],
    ] as const) {
      const samples: number[] = [];
      for (let i = 0; i < 220; i++) {
        const t = performance.now();
        const res = await fetch(base + path);
        await res.arrayBuffer();
        if (i >= 20) samples.push(performance.now() - t);
      }
      r.figure({ name: `read p50, ${label}`, value: percentile(samples, 50), unit: "ms" });
      r.figure({ name: `read p99, ${label}`, value: percentile(samples, 99), unit: "ms" });
    }
  } finally {
    await svc.close();
    await world.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

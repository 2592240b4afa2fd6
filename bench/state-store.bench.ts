import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pendingOrderStore } from "../src/engine/hl-adapter.ts";
import { StateStore } from "../src/engine/state-store.ts";
import { type BenchReporter, percentile } from "./harness.ts";

const SAVES = 300;
const PENDING = [
  {
    order: { instrument: "ETH-PERP", side: "buy", price: "2500", size: "0.1", cloid: `0x${"ab".repeat(16)}` },
    sentAtMs: 1_800_000_000_000,
    expiresAfterMs: 1_800_000_015_000,
  },
];

/**
 * `hl run` saves its in-flight orders to state.db before each batch is sent and clears them after:
 * the cost of one such save on the run's open store, against the same save on a second connection
 * opened and closed around it (what every save paid before the run kept one connection).
 */
export default async function (r: BenchReporter): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "bench-state-store-"));
  try {
    const path = join(dir, "state.db");
    // The engine's own connection stays open throughout, as in a run.
    const engine = new StateStore(path);
    const reopened: number[] = [];
    for (let i = 0; i < SAVES; i++) {
      const t = performance.now();
      const store = new StateStore(path);
      store.save({ pending_orders: i % 2 ? PENDING : [] });
      store.close();
      reopened.push(performance.now() - t);
    }
    const pending = pendingOrderStore(engine);
    const kept: number[] = [];
    for (let i = 0; i < SAVES; i++) {
      const t = performance.now();
      pending.save(i % 2 ? (PENDING as never) : []);
      kept.push(performance.now() - t);
    }
    engine.close();
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    for (const [label, of] of [
      ["mean", mean],
      ["p90", (xs: number[]) => percentile(xs, 90)],
    ] as const) {
      const reopenMs = of(reopened);
      r.figure({
        name: `pending-order save, store reopened each time (${label})`,
        value: reopenMs,
        unit: "ms",
      });
      r.figure({
        name: `pending-order save on the run's open store (${label})`,
        value: of(kept),
        unit: "ms",
        baseline: { name: "reopened", value: reopenMs },
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

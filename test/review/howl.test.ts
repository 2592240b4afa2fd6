import { appendFileSync, existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { UserError } from "../../src/core/errors.ts";
import { howlHistory, readLatestHowlReport, runHowl } from "../../src/review/howl.ts";
import { computeHowlMetrics } from "../../src/review/howl-metrics.ts";
import { renderHowlReport } from "../../src/review/howl-report.ts";
import { readMemory } from "../../src/review/memory.ts";
import { tempDataDir, trip, writeTrades } from "./helpers.ts";

const DAY = 86_400_000;
const MAR3 = Date.UTC(2026, 2, 3);

describe("runHowl", () => {
  it("writes a UTC-stamped report and report-latest.md, and remembers the review", () => {
    const dataDir = tempDataDir();
    writeTrades(dataDir, trip({ entry: 100, exit: 110, fee: 0.5, t: MAR3 }));
    const now = Date.UTC(2026, 2, 3, 14, 5, 9);
    const r = runHowl({ dataDir, nowMs: now });
    expect(r.reportPath).toBe(join(dataDir, "howl", "2026-03-03-140509.md"));
    expect(readFileSync(r.latestPath!, "utf8")).toBe(readFileSync(r.reportPath!, "utf8"));
    const md = readFileSync(r.reportPath!, "utf8");
    for (const s of [
      "# HOWL Report — 2026-03-03 14:05 UTC",
      "**Net PnL** | **$+9.00**",
      "## Fee Analysis",
      "## Recommendations",
    ]) {
      expect(md).toContain(s);
    }
    expect(r.metrics.net_pnl).toBe(9);
    const events = readMemory({ dataDir, event_type: "howl_review" });
    expect(events).toHaveLength(1);
    expect(events[0]!.payload).toMatchObject({ round_trips: 1, net_pnl: 9 });
  });

  it("never overwrites an earlier report from the same second; latest is always the newest", () => {
    const dataDir = tempDataDir();
    writeTrades(dataDir, trip({ entry: 100, exit: 110, t: MAR3 }));
    const first = runHowl({ dataDir, nowMs: MAR3 + DAY });
    writeTrades(dataDir, trip({ entry: 100, exit: 120, t: MAR3 + 5_000_000 }));
    const second = runHowl({ dataDir, nowMs: MAR3 + DAY });
    expect(second.reportPath).not.toBe(first.reportPath);
    expect(second.reportPath!.endsWith("-2.md")).toBe(true);
    expect(readLatestHowlReport(dataDir)).toContain("$+30.00");
    expect(readdirSync(join(dataDir, "howl")).sort()).toHaveLength(3);
  });

  it("reviews both trade logs (wolf and cli) without matching across them", () => {
    const dataDir = tempDataDir();
    writeTrades(dataDir, trip({ entry: 100, exit: 110, t: MAR3 }), "wolf");
    writeTrades(dataDir, trip({ entry: 50, exit: 45, t: MAR3, strategy: "engine_mm" }), "cli");
    const both = runHowl({ dataDir, nowMs: MAR3 + DAY });
    expect(both.metrics.total_round_trips).toBe(2);
    expect(both.metrics.net_pnl).toBe(5);
    expect(runHowl({ dataDir, nowMs: MAR3 + DAY, sources: ["cli"] }).metrics.net_pnl).toBe(-5);
  });

  it("since (UTC date) keeps trips closed in the window, pairing over all history so no phantom trip appears", () => {
    const dataDir = tempDataDir();
    // long opened on Mar 2, closed Mar 3; then a fresh long on Mar 3 still open.
    writeTrades(dataDir, [
      { side: "buy", price: 100, quantity: 1, timestamp_ms: MAR3 - 3_600_000 },
      { side: "sell", price: 105, quantity: 1, timestamp_ms: MAR3 + 3_600_000 },
      ...trip({ entry: 10, exit: 11, t: MAR3 - 2 * DAY }),
    ]);
    const r = runHowl({ dataDir, since: "2026-03-03", nowMs: MAR3 + DAY });
    expect(r.metrics.total_round_trips).toBe(1);
    expect(r.metrics.long.count).toBe(1);
    expect(r.metrics.short.count).toBe(0);
    expect(r.metrics.net_pnl).toBe(5);
    expect(r.metrics.total_trades).toBe(1);
  });

  it("an invalid since date is a UserError", () => {
    const dataDir = tempDataDir();
    expect(() => runHowl({ dataDir, since: "03/03/2026" })).toThrow(UserError);
    expect(() => runHowl({ dataDir, since: "2026-02-30" })).toThrow(/YYYY-MM-DD/);
  });

  it("no trades: no report, a clear message", () => {
    const dataDir = tempDataDir();
    const r = runHowl({ dataDir, nowMs: MAR3 });
    expect(r.reportPath).toBeNull();
    expect(r.distill).toContain("No trades");
    expect(existsSync(join(dataDir, "howl"))).toBe(false);
  });

  it("mentions skipped malformed lines", () => {
    const dataDir = tempDataDir();
    writeTrades(dataDir, trip({ entry: 1, exit: 2, t: MAR3 }));
    appendFileSync(join(dataDir, "wolf", "trades.jsonl"), "garbage\n");
    const r = runHowl({ dataDir, nowMs: MAR3 + DAY });
    expect(r.skippedLines).toBe(1);
    expect(readFileSync(r.reportPath!, "utf8")).toContain("1 malformed line(s)");
  });

  it("history lists reports newest first from their embedded summaries", () => {
    const dataDir = tempDataDir();
    writeTrades(dataDir, trip({ entry: 100, exit: 110, t: MAR3 }));
    runHowl({ dataDir, nowMs: MAR3 + DAY });
    writeTrades(dataDir, trip({ entry: 100, exit: 90, t: MAR3 + DAY + 1 }));
    runHowl({ dataDir, nowMs: MAR3 + 2 * DAY });
    const rows = howlHistory(dataDir);
    expect(rows.map((r) => r.net_pnl)).toEqual([0, 10]);
    expect(rows[0]!.file).toBe("2026-03-05-000000.md");
    expect(howlHistory(dataDir, 1)).toHaveLength(1);
  });
});

describe("renderHowlReport", () => {
  it("renders an empty metrics object", () => {
    const md = renderHowlReport({
      metrics: computeHowlMetrics([], [], []),
      recommendations: [],
      generatedAt: "2026-03-03 00:00 UTC",
      since: null,
      sources: ["wolf"],
      skippedLines: 0,
    });
    expect(md).toContain("HOWL Report");
    expect(md).toContain("No data to generate recommendations.");
    expect(md).toContain("n/a");
  });
});

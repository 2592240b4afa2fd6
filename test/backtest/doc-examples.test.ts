import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { backtestDocExamples } from "../../src/backtest/doc-examples.ts";

/** docs/backtesting.md's worked examples are what the runs print today (regenerate: node bin/run-ts.mjs scripts/backtest-docs.ts). */
describe("docs/backtesting.md worked examples", () => {
  it("match a real run of each command", async () => {
    const doc = readFileSync(join(import.meta.dirname, "..", "..", "docs", "backtesting.md"), "utf8");
    const start = "<!-- backtest-examples:start -->\n";
    const shown = doc.slice(
      doc.indexOf(start) + start.length,
      doc.indexOf("\n<!-- backtest-examples:end -->"),
    );
    expect(shown).toBe(await backtestDocExamples());
  }, 60_000);
});

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { backtestDocExamples } from "../src/backtest/doc-examples.ts";

/** Rewrites the worked examples of docs/backtesting.md from real runs (test/backtest/doc-examples.test.ts checks them). */
const path = join(import.meta.dirname, "..", "docs", "backtesting.md");
const text = readFileSync(path, "utf8");
const start = "<!-- backtest-examples:start -->\n";
const end = "\n<!-- backtest-examples:end -->";
const a = text.indexOf(start);
const b = text.indexOf(end);
if (a < 0 || b < a) throw new Error("docs/backtesting.md: markers backtest-examples:start/end not found");
const next = text.slice(0, a + start.length) + (await backtestDocExamples()) + text.slice(b);
if (next !== text) writeFileSync(path, next);
process.stdout.write(`docs/backtesting.md: ${next === text ? "up to date" : "updated"}\n`);

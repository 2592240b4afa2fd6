import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { riskLimitsMarkdown } from "../src/engine/risk.ts";
import { strategyParamsMarkdown } from "../src/strategies/params-docs.ts";
import { wolfConfigTable } from "../src/wolf/config-docs.ts";

/**
 * `npm run docs`: rewrite the generated parts of the docs from the code (the tests fail until they
 * agree): risk limits and strategy params in docs/strategies.md, WOLF settings in docs/wolf-config.md.
 */
const root = join(import.meta.dirname, "..");

function replaceBetween(file: string, marker: string, content: string): void {
  const path = join(root, file);
  const text = readFileSync(path, "utf8");
  const start = `<!-- ${marker}:start -->\n`;
  const end = `\n<!-- ${marker}:end -->`;
  const a = text.indexOf(start);
  const b = text.indexOf(end);
  if (a < 0 || b < a) throw new Error(`${file}: markers ${marker}:start/end not found`);
  const next = text.slice(0, a + start.length) + content + text.slice(b);
  if (next !== text) writeFileSync(path, next);
  process.stdout.write(`${file}: ${next === text ? "up to date" : "updated"}\n`);
}

replaceBetween("docs/strategies.md", "risk-limits", riskLimitsMarkdown());
replaceBetween("docs/strategies.md", "strategy-params", strategyParamsMarkdown());
replaceBetween("docs/wolf-config.md", "wolf-config", wolfConfigTable());

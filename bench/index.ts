import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { type BenchFn, type Figure, formatFigure, meetsTarget } from "./harness.ts";

/** Runs every bench/*.bench.ts (or those whose name contains argv[2]) and prints each figure. */
const here = dirname(fileURLToPath(import.meta.url));
const filter = process.argv[2];
const files = readdirSync(here)
  .filter((f) => f.endsWith(".bench.ts") && (!filter || f.includes(filter)))
  .sort();

const figures: Figure[] = [];
for (const file of files) {
  console.log(`\n# ${file.replace(".bench.ts", "")}`);
  const mod = (await import(pathToFileURL(join(here, file)).href)) as { default: BenchFn };
  await mod.default({
    figure(f) {
      figures.push(f);
      console.log(formatFigure(f));
    },
  });
}
const missed = figures.filter((f) => meetsTarget(f) === false);
console.log(
  `\n${figures.length} figures, ${missed.length} targets missed${missed.length ? `: ${missed.map((f) => f.name).join("; ")}` : ""}`,
);
process.exit(0);

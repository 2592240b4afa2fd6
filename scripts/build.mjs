#!/usr/bin/env node
// `npm run build` (also run by `npm ci` through `prepare`): compiles src/ into dist/ with tsc (emit
// only: type errors are the business of `npm test` and `npm run typecheck`), copies the SQL
// migrations, renders the top-level help from the compiled command tree, and writes dist/BUILD_STAMP last. bin/hl.mjs runs
// dist/ only when the stamp exists and no source file is newer than the time the build started.
import { execFileSync } from "node:child_process";
import { cpSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../", import.meta.url));
const started = Date.now();
rmSync(`${root}dist`, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
execFileSync(process.execPath, [tsc, "-p", `${root}tsconfig.build.json`, "--noCheck"], { stdio: "inherit" });
// tsc copies no SQL: the Postgres migrations are read from beside the compiled migration runner.
cpSync(`${root}src/db/migrations`, `${root}dist/db/migrations`, { recursive: true });
// Nor the sim's recorded market facts, read from beside the compiled market list.
cpSync(`${root}src/sim/recorded`, `${root}dist/sim/recorded`, { recursive: true });
const help = execFileSync(process.execPath, [`${root}dist/cli/main.js`, "--help"], {
  encoding: "utf8",
  env: { ...process.env, COLUMNS: "100" },
});
writeFileSync(`${root}dist/help.txt`, help);
writeFileSync(`${root}dist/BUILD_STAMP`, String(started));

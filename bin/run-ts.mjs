#!/usr/bin/env node
// Runs one TypeScript file (bench, scripts) with the same loader as `hl`.
import { pathToFileURL } from "node:url";
import { resolve } from "node:path";
import { register } from "tsx/esm/api";

const file = process.argv[2];
if (!file) {
  console.error("usage: run-ts.mjs FILE.ts [args…]");
  process.exit(2);
}
register();
process.argv.splice(1, 1);
await import(pathToFileURL(resolve(file)).href);

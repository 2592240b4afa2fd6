// Module hooks for HL_TRACE_MODULES (see bin/hl.mjs): appends the URL of every module loaded.
import { appendFileSync } from "node:fs";

let file;

export function initialize(data) {
  file = data.file;
}

export async function load(url, context, nextLoad) {
  appendFileSync(file, `${process.pid} ${url}\n`);
  return nextLoad(url, context);
}

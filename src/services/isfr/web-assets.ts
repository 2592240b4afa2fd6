import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { FastifyInstance } from "fastify";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
};

/** Root of the repository's `web/` folder (static pages, no build step). */
export const WEB_ROOT = fileURLToPath(new URL("../../../web/", import.meta.url));

/** Path of lightweight-charts' standalone browser script (defines the `LightweightCharts` global). */
export function lightweightChartsScript(): string {
  const require = createRequire(import.meta.url);
  const pkg = require.resolve("lightweight-charts/package.json");
  return join(pkg, "..", "dist", "lightweight-charts.standalone.production.js");
}

/**
 * Serve a fixed set of files: `files` maps a URL path to a file on disk. Files are read on each
 * request (they are small) so an edited page shows without a restart.
 */
export function serveFiles(app: FastifyInstance, files: Record<string, string>): void {
  for (const [url, path] of Object.entries(files)) {
    app.get(url, async (_req, reply) => {
      const body = await readFile(path);
      reply.type(TYPES[extname(path)] ?? "application/octet-stream").header("Cache-Control", "no-cache");
      return body;
    });
  }
}

import { readFile } from "node:fs/promises";
import { extname, join, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { FastifyInstance } from "fastify";

/** The repository's `web/` folder: dashboard pages, served as files with no build step. */
export const WEB_DIR = fileURLToPath(new URL("../../web/", import.meta.url));

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".json": "application/json",
};

/** lightweight-charts' standalone build, exposing `window.LightweightCharts`. */
const CHARTS_FILE = fileURLToPath(
  new URL(
    "../../node_modules/lightweight-charts/dist/lightweight-charts.standalone.production.js",
    import.meta.url,
  ),
);

/**
 * Serve the files of `web/<folder>/` under `prefix` (e.g. "/" or "/isfr/"), `index.html` for the
 * folder itself, plus the chart library at `<prefix>vendor/lightweight-charts.js`. Paths that try to
 * leave the folder are refused.
 */
export function serveWebFolder(app: FastifyInstance, prefix: string, folder: string): void {
  const root = join(WEB_DIR, folder);
  const base = prefix.endsWith("/") ? prefix : `${prefix}/`;
  app.get(`${base}vendor/lightweight-charts.js`, async (_req, reply) => {
    reply.type(TYPES[".js"]!).header("Cache-Control", "public, max-age=3600");
    return readFile(CHARTS_FILE);
  });
  const send = async (rel: string, reply: import("fastify").FastifyReply) => {
    const path = normalize(join(root, rel || "index.html"));
    if (!path.startsWith(root.endsWith(sep) ? root : root + sep)) {
      return reply.code(404).send({ error: "Not found" });
    }
    try {
      const body = await readFile(path);
      reply.type(TYPES[extname(path)] ?? "application/octet-stream").header("Cache-Control", "no-cache");
      return reply.send(body);
    } catch {
      return reply.code(404).send({ error: `Not found: ${base}${rel}` });
    }
  };
  app.get(base, async (_req, reply) => send("", reply));
  app.get(`${base}assets/*`, async (req, reply) => {
    const rel = (req.params as { "*": string })["*"];
    return send(join("assets", rel), reply);
  });
}

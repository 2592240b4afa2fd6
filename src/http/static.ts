import { readFile } from "node:fs/promises";
import { extname, join, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { HttpApp } from "./app.ts";
import { json, type Reply, send } from "./reply.ts";

/** The repository's `web/` folder: dashboard pages, served as files with no build step. */
const WEB_DIR = fileURLToPath(new URL("../../web/", import.meta.url));

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

/** One GET route of a web folder: an exact path, or a prefix ending in `/*` answered from its rest. */
interface WebRoute {
  pattern: string;
  answer(rest: string): Promise<Reply>;
}

/**
 * The files of `web/<folder>/` under `prefix` (e.g. "/" or "/isfr/"), `index.html` for the folder
 * itself, plus the chart library at `<prefix>vendor/lightweight-charts.js`. Paths that try to leave
 * the folder are refused.
 */
function webFolderRoutes(prefix: string, folder: string): WebRoute[] {
  const root = join(WEB_DIR, folder);
  const base = prefix.endsWith("/") ? prefix : `${prefix}/`;
  const file = async (rel: string): Promise<Reply> => {
    const path = normalize(join(root, rel || "index.html"));
    if (!path.startsWith(root.endsWith(sep) ? root : root + sep)) return json({ error: "Not found" }, 404);
    try {
      const body = await readFile(path);
      return send(body, TYPES[extname(path)] ?? "application/octet-stream", { "cache-control": "no-cache" });
    } catch {
      return json({ error: `Not found: ${base}${rel}` }, 404);
    }
  };
  return [
    {
      pattern: `${base}vendor/lightweight-charts.js`,
      answer: async () =>
        send(await readFile(CHARTS_FILE), TYPES[".js"]!, { "cache-control": "public, max-age=3600" }),
    },
    { pattern: base, answer: () => file("") },
    { pattern: `${base}assets/*`, answer: (rest) => file(join("assets", rest)) },
  ];
}

/** Serve a web folder (see webFolderRoutes) on an HttpApp. */
export function serveWebFolder(app: HttpApp, prefix: string, folder: string): void {
  for (const route of webFolderRoutes(prefix, folder))
    app.get(route.pattern, (req) => route.answer(req.rest));
}

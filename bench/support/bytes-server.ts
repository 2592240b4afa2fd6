import { readFileSync } from "node:fs";
import { createServer } from "node:http";

/**
 * Baseline for the leaderboard read benchmark: bare node:http answering each path with bytes fixed
 * in advance (the leaderboard's own responses, captured), so the ratio shows what the service adds
 * over the cheapest possible server on the same machine. MANIFEST: JSON {"<path> <encoding>": file}, encoding identity, gzip or br.
 */
const manifest = JSON.parse(readFileSync(process.env.MANIFEST!, "utf8")) as Record<string, string>;
const bodies = new Map(Object.entries(manifest).map(([key, file]) => [key, readFileSync(file)]));
const server = createServer((req, res) => {
  const accept = req.headers["accept-encoding"] ?? "";
  const encoding = /\bbr\b/.test(accept) ? "br" : /\bgzip\b/.test(accept) ? "gzip" : "identity";
  const coded = bodies.get(`${req.url} ${encoding}`);
  const body = coded ?? bodies.get(`${req.url} identity`);
  if (!body) {
    res.writeHead(404).end();
    return;
  }
  const headers: Record<string, string | number> = {
    "content-type": "application/json; charset=utf-8",
    "content-length": body.length,
  };
  if (coded && encoding !== "identity") headers["content-encoding"] = encoding;
  res.writeHead(200, headers).end(body);
});
server.listen(0, "127.0.0.1", () => {
  const addr = server.address();
  process.stdout.write(`${JSON.stringify({ port: typeof addr === "object" && addr ? addr.port : 0 })}\n`);
});
process.once("SIGTERM", () => server.close(() => process.exit(0)));

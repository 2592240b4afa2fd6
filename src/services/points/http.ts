import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { FastifyReply } from "fastify";
import { z } from "zod";
import { mapLimit } from "../../core/concurrency.ts";
import { type ReplicaHealth, StoreUnavailableError } from "../../db/store-health.ts";
import { createService, HttpError, type Service } from "../../http/service.ts";
import { isWalletAddress } from "./config.ts";
import type { FillDetail, PointsService, WalletPoints } from "./service.ts";

const WEB_DIR = join(dirname(fileURLToPath(import.meta.url)), "../../../web/points");

export const MAX_BATCH = 100;
/** Wallets of one batch computed at once (each reads fills and builder files). */
const BATCH_CONCURRENCY = 8;

const batchBody = z.object({ addresses: z.array(z.string()) });

const INVALID_WALLET = "Invalid wallet address (expected 0x + 40 hex chars)";

/**
 * Exchange and file failures reach the client as 502 with the cause, never as a 500; an unavailable
 * store is a 503 that names no server.
 */
async function upstream<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof HttpError) throw err;
    if (err instanceof StoreUnavailableError) throw new HttpError(503, err.message);
    throw new HttpError(
      502,
      `Failed to query Hyperliquid: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}

/** The points API (interfaces.md F), paths under /points, plus the points page at /points/. */
export function createPointsApp(points: PointsService, health?: () => Promise<ReplicaHealth>): Service {
  const service = createService({ name: "points" });
  const { app } = service;

  if (health)
    app.get("/health", async (_req, reply) => {
      const h = await health();
      if (h.store === "down") reply.code(503);
      return { status: h.store === "ok" ? "ok" : "store down", ...h };
    });

  app.get("/points/market-config", async () => points.marketConfig());

  app.get<{ Params: { wallet: string }; Querystring: { fills?: string } }>(
    "/points/market-address/:wallet",
    async (req): Promise<WalletPoints & { fills?: FillDetail[] }> => {
      const wallet = req.params.wallet;
      if (!isWalletAddress(wallet)) throw new HttpError(400, INVALID_WALLET);
      const result = await upstream(() => points.wallet(wallet));
      const withFills = req.query.fills === "true" || req.query.fills === "1";
      return withFills ? { ...result.summary, fills: result.fills } : result.summary;
    },
  );

  app.post("/points/market-addresses", async (req) => {
    const parsed = batchBody.safeParse(req.body);
    if (!parsed.success) throw new HttpError(400, "Body must be {addresses: [<wallet address>, ...]}");
    const { addresses } = parsed.data;
    if (addresses.length === 0) throw new HttpError(400, "addresses must not be empty");
    if (addresses.length > MAX_BATCH) throw new HttpError(400, `At most ${MAX_BATCH} addresses per request`);
    const bad = addresses.find((a) => !isWalletAddress(a));
    if (bad !== undefined) throw new HttpError(400, `${INVALID_WALLET}: ${bad}`);
    const wallets = await upstream(() =>
      mapLimit(addresses, BATCH_CONCURRENCY, async (a) => (await points.wallet(a)).summary),
    );
    return { wallets };
  });

  const page = (file: string, type: string) => async (_req: unknown, reply: FastifyReply) => {
    reply.type(type);
    return readFile(join(WEB_DIR, file));
  };
  app.get("/points", async (_req, reply) => reply.redirect("/points/"));
  app.get("/points/", page("index.html", "text/html; charset=utf-8"));
  app.get("/points/points.js", page("points.js", "text/javascript; charset=utf-8"));
  return service;
}

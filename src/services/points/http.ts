import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { mapLimit } from "../../core/concurrency.ts";
import { StoreUnavailableError } from "../../db/store-health.ts";
import { type HealthSource, ServiceHealth } from "../../http/health.ts";
import { json, type Reply, redirect, send } from "../../http/reply.ts";
import { createService, HttpError, type Service } from "../../http/service.ts";
import { isWalletAddress } from "./config.ts";
import type { LocalAgentWallet } from "./local-agents.ts";
import type { FillDetail, PointsService, WalletPoints } from "./service.ts";

const WEB_DIR = join(dirname(fileURLToPath(import.meta.url)), "../../../web/points");

const MAX_BATCH = 100;
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
export function createPointsApp(
  points: PointsService,
  opts: {
    now?: () => number;
    health?: readonly HealthSource[];
    /** The wallets of the agents on this machine (`hl up`), for the page; none elsewhere. */
    localAgents?: () => LocalAgentWallet[];
  } = {},
): Service & { health: ServiceHealth } {
  const now = opts.now ?? Date.now;
  const started = now();
  const service = createService({ name: "points" });
  const { app } = service;
  const health = new ServiceHealth(() => ({ status: "ok", uptime_s: Math.floor((now() - started) / 1000) }));
  health.serve(app, ["/health"]);
  for (const source of opts.health ?? []) health.register(source);

  app.get("/points/market-config", async () => json(await points.marketConfig()));

  app.get("/points/market-address/*", async (req): Promise<Reply> => {
    const wallet = req.rest;
    if (wallet.includes("/")) throw new HttpError(404, `Not found: GET ${req.path}`);
    if (!isWalletAddress(wallet)) throw new HttpError(400, INVALID_WALLET);
    const result = await upstream(() => points.wallet(wallet));
    const fills = req.query.get("fills");
    const withFills = fills === "true" || fills === "1";
    const body: WalletPoints & { fills?: FillDetail[] } = withFills
      ? { ...result.summary, fills: result.fills }
      : result.summary;
    return json(body);
  });

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
    return json({ wallets });
  });

  // Ours, not the contract's: the page offers these wallets so a newcomer has an address to look up.
  app.get("/points/local-agents", () => json({ agents: opts.localAgents?.() ?? [] }));

  const page = (file: string, type: string) => async () => send(await readFile(join(WEB_DIR, file)), type);
  app.get("/points", () => redirect("/points/"));
  app.get("/points/", page("index.html", "text/html; charset=utf-8"));
  app.get("/points/points.js", page("points.js", "text/javascript; charset=utf-8"));
  return { ...service, health };
}

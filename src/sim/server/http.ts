import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { requestWeight, responseWeight } from "../../exchange/budget.ts";
import { meterRequest, serviceMetrics } from "../../http/metrics.ts";
import type { AuthDeps } from "../auth/authenticate.ts";
import type { Address, Venue } from "../venue.ts";
import { AdminError, handleAdmin, type SimControl } from "./admin.ts";
import { answerExchange, answerInfo } from "./endpoints.ts";
import { type Fault, FaultError, type SimFaults } from "./faults.ts";
import { SIM_INDEX } from "./index-page.ts";
import { InfoCache } from "./info-cache.ts";
import type { IpWeightLimiter } from "./ip-weight.ts";
import {
  BodyTooLarge,
  readBody,
  sendBytes,
  sendJson,
  sendNoContent,
  sendPrepared,
  sendRawJson,
  sendText,
} from "./respond.ts";
import { sourceAddress } from "./source-address.ts";
import { USDYP_CLAIM_PATH, type UsdypFaucet } from "./usdyp-claim.ts";
import type { WeightMeter } from "./weight-meter.ts";
import type { WsLimiter } from "./ws-limits.ts";

interface SimHttpDeps {
  venue: Venue;
  auth: AuthDeps;
  control: SimControl;
  /** Told about every address an info request names (first use opens the account). */
  seeUser(user: Address): void;
  yieldPools(): unknown;
  /** Serialized allMids / l2Book answers, invalidated by the venue's events. */
  infoCache?: InfoCache;
  /** The day's LZ4 CSV for a builder, or undefined when the day is not closed or it has no fills (→ 403). */
  builderFillsFile(network: "Mainnet" | "Testnet", builder: Address, day: string): Uint8Array | undefined;
  /** Injected network faults (`/sim/fault`), for resilience tests. */
  faults?: SimFaults;
  /** Nunchi's testnet USDyP claim, when this world serves it. */
  usdypFaucet?: UsdypFaucet;
  /** Hyperliquid's per-IP request-weight limit, when this world enforces it. */
  ipWeight?: IpWeightLimiter;
  /** Weight spent per source address, limit or not (`GET /sim/weight`). */
  weightMeter: WeightMeter;
  /** WebSocket use per source address, limits or not (`GET /sim/ws-limits`). */
  wsLimiter?: WsLimiter;
}

const BUILDER_FILLS_PATH = /^\/stats\/(Mainnet|Testnet)\/builder_fills\/([^/]+)\/(\d{8})\.csv\.lz4$/;
const LOWER_ADDRESS = /^0x[0-9a-f]{40}$/;
/** What the real (S3-backed) stats server answers for a file that is not there (yet). */
const ACCESS_DENIED = new TextEncoder().encode(
  '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>',
);

/** The sim world's HTTP face: /info, /exchange, /sim/* admin, /yields/pools and builder fill files. */
export function createSimHttpServer(deps: SimHttpDeps): Server {
  const metrics = serviceMetrics("sim");
  const server = createServer((req, res) => {
    if (meterRequest(metrics, req, res, simRoute(pathOf(req)))) return;
    handle(req, res, deps).catch((err: unknown) => {
      process.stderr.write(`sim server: ${err instanceof Error ? err.message : String(err)}\n`);
      if (!res.headersSent) sendJson(res, 500, { error: "Internal server error" });
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 65_000;
  return server;
}

/** The request's path, without its query. */
function pathOf(req: IncomingMessage): string {
  const url = req.url ?? "/";
  const q = url.indexOf("?");
  return q < 0 ? url : url.slice(0, q);
}

/** The route a path counts under in the metrics: a fixed set, whatever the path. */
function simRoute(path: string): string {
  if (["/info", "/exchange", "/yields/pools", "/metrics", "/health"].includes(path)) return path;
  if (path.startsWith("/sim/")) return "/sim/*";
  if (path.startsWith("/stats/")) return "/stats/*";
  return "unmatched";
}

/** The request body as text, or undefined when it was refused (too large: 413 already sent). */
async function readText(req: IncomingMessage, res: ServerResponse): Promise<string | undefined> {
  try {
    return await readBody(req);
  } catch (err) {
    if (err instanceof BodyTooLarge) sendJson(res, 413, { error: err.message });
    return undefined;
  }
}

function parseJson(text: string): { body: unknown } {
  if (text.trim() === "") return { body: undefined };
  try {
    return { body: JSON.parse(text) };
  } catch {
    return { body: Symbol.for("invalid-json") };
  }
}

async function readJson(req: IncomingMessage, res: ServerResponse): Promise<{ body: unknown } | undefined> {
  const text = await readText(req, res);
  return text === undefined ? undefined : parseJson(text);
}

async function handle(req: IncomingMessage, res: ServerResponse, deps: SimHttpDeps): Promise<void> {
  const method = req.method ?? "GET";
  const path = pathOf(req);
  if (method === "OPTIONS") return sendNoContent(res);

  if (method === "POST" && (path === "/info" || path === "/exchange")) {
    const text = await readText(req, res);
    if (text === undefined) return;
    const source = sourceAddress(req);
    // A repeated market-data request is answered from its text alone, unless an injected fault
    // needs to look at what it asks; it is weighed by its kind (allMids and l2Book weigh 2).
    const cache = path === "/info" && !deps.faults?.armed ? deps.infoCache : undefined;
    const known = cache?.lookupText(text);
    if (known) {
      const type = known.key.split("|")[0]!;
      if (!spend(deps, source, `info:${type}`, requestWeight("info", { type }))) return refuse(res);
      return sendPrepared(res, known);
    }
    const read = parseJson(text);
    if (typeof read.body === "symbol") {
      return sendText(res, 422, "Failed to deserialize the JSON body into the target type: invalid JSON");
    }
    const endpoint = path === "/exchange" ? "exchange" : "info";
    const kind = kindOf(endpoint, read.body);
    if (!spend(deps, source, kind, requestWeight(endpoint, read.body))) return refuse(res);
    const fault = deps.faults?.take(endpoint, read.body);
    if (fault?.kind === "rate_limit") return sendText(res, 429, "Too Many Requests");
    if (fault?.kind === "slow") await new Promise((resolve) => setTimeout(resolve, fault.delayMs));
    if (path === "/exchange") {
      const result = await answerExchange(deps.venue, deps.auth, read.body, deps.seeUser);
      if (fault && fault.kind !== "slow" && (await faulted(res, fault))) return;
      return result.ok ? sendJson(res, 200, result.body) : sendText(res, 422, result.message);
    }
    if (fault && fault.kind !== "slow" && (await faulted(res, fault))) return;
    const body = read.body as Record<string, unknown>;
    const key =
      deps.infoCache && typeof body === "object" && body !== null ? InfoCache.keyOf(body) : undefined;
    const cached = key === undefined ? undefined : deps.infoCache!.get(key, text);
    if (cached !== undefined) return sendPrepared(res, cached);
    const result = answerInfo(deps.venue, read.body, deps.seeUser, deps.auth.addressBudget);
    if (!result.ok) return sendText(res, 422, result.message);
    const owed = responseWeight("info", read.body, result.body);
    deps.ipWeight?.charge(source, owed);
    deps.weightMeter.spend(source, kind, owed, true);
    const json = JSON.stringify(result.body) ?? "null";
    if (key !== undefined) return sendPrepared(res, deps.infoCache!.set(key, body, json, text));
    return sendRawJson(res, 200, json);
  }

  if (path.startsWith("/sim/")) {
    let body: unknown;
    if (deps.faults && (path === "/sim/fault" || path === "/sim/faults")) {
      const read = method === "POST" ? await readJson(req, res) : { body: undefined };
      if (!read) return;
      try {
        return sendJson(res, 200, deps.faults.admin(method, path, read.body));
      } catch (err) {
        if (err instanceof FaultError) return sendJson(res, err.status, { error: err.message });
        throw err;
      }
    }
    if (method === "GET" && path === "/sim/weight") {
      return sendJson(res, 200, {
        limitPerMinute: deps.ipWeight?.weightPerMinute ?? null,
        addresses: deps.weightMeter.report(),
      });
    }
    if (method === "GET" && path === "/sim/ws-limits" && deps.wsLimiter) {
      return sendJson(res, 200, {
        limits: deps.wsLimiter.limits ?? null,
        addresses: deps.wsLimiter.report(),
      });
    }
    if (method === "POST") {
      const read = await readJson(req, res);
      if (!read) return;
      if (typeof read.body === "symbol") return sendJson(res, 400, { error: "Invalid JSON body" });
      body = read.body;
    }
    try {
      return sendJson(res, 200, handleAdmin(method, path, body, deps.control));
    } catch (err) {
      if (err instanceof AdminError) return sendJson(res, err.status, { error: err.message });
      return sendJson(res, 400, { error: err instanceof Error ? err.message : String(err) });
    }
  }

  if (method === "GET" && path === "/") return sendJson(res, 200, SIM_INDEX);
  if (method === "GET" && path === "/yields/pools") return sendJson(res, 200, deps.yieldPools());
  // Every service answers GET /health; the sim's is its admin health.
  if (method === "GET" && path === "/health") return sendJson(res, 200, deps.control.health());

  if (method === "POST" && path === USDYP_CLAIM_PATH && deps.usdypFaucet) {
    const read = await readJson(req, res);
    if (!read) return;
    const header = req.headers["x-network"];
    const r = deps.usdypFaucet.claim(Array.isArray(header) ? header[0] : header, read.body);
    return sendJson(res, r.status, r.body);
  }

  const fills = method === "GET" ? BUILDER_FILLS_PATH.exec(path) : null;
  if (fills) {
    const [, network, builder, day] = fills;
    // Paths are case-sensitive on the real server: a checksummed address finds nothing.
    const file = LOWER_ADDRESS.test(builder!)
      ? deps.builderFillsFile(network as "Mainnet" | "Testnet", builder as Address, day!)
      : undefined;
    if (!file) return sendBytes(res, 403, ACCESS_DENIED, "application/xml");
    return sendBytes(res, 200, file, "application/octet-stream");
  }

  sendJson(res, 404, { error: `Not found: ${method} ${path}` });
}

/** Charge `weight` to `source`; false (nothing charged) when its per-IP budget does not cover it. */
function spend(deps: SimHttpDeps, source: string, kind: string, weight: number): boolean {
  if (deps.ipWeight && !deps.ipWeight.take(source, weight)) {
    deps.weightMeter.refuse(source);
    return false;
  }
  deps.weightMeter.spend(source, kind, weight);
  return true;
}

/** `info:<type>` or `exchange:<action type>`, as the weight report groups requests. */
function kindOf(endpoint: "info" | "exchange", body: unknown): string {
  const obj = typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {};
  const inner = endpoint === "exchange" ? obj.action : obj;
  const type =
    typeof inner === "object" && inner !== null ? (inner as Record<string, unknown>).type : undefined;
  return `${endpoint}:${typeof type === "string" ? type.slice(0, 40) : "?"}`;
}

/** The exchange answers an address over its weight with 429 and a JSON `null` body. */
function refuse(res: ServerResponse): void {
  sendRawJson(res, 429, "null");
}

/** Apply a processed-then-failed fault; true when the connection was reset (nothing left to answer). */
async function faulted(res: ServerResponse, fault: Fault): Promise<boolean> {
  if (fault.kind === "reset") {
    res.socket?.destroy();
    return true;
  }
  await new Promise((resolve) => setTimeout(resolve, fault.delayMs));
  return res.destroyed;
}

import { createRequire } from "node:module";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import type { Registry } from "prom-client";
import { CORS_HEADERS, CORS_METHODS } from "./cors.ts";
import { HttpError } from "./errors.ts";
import { METRICS_CONTENT_TYPE, type ServiceMetrics, serviceMetrics } from "./metrics.ts";

export { CORS_HEADERS, CORS_METHODS, HttpError };

export interface ServiceOptions {
  /** Service name, used in logs and metrics. */
  name: string;
  /** Value of Access-Control-Allow-Origin (CORS_ORIGIN, default "*"). */
  corsOrigin?: string;
  /** Which paths carry the CORS headers on normal responses; OPTIONS on any path always answers 204. */
  corsPaths?: (url: string) => boolean;
  logger?: boolean;
  /** Handles requests no route matched (default: 404 JSON). */
  notFound?: (req: FastifyRequest, reply: FastifyReply) => void;
}

export interface Service {
  app: FastifyInstance;
  /** prom-client's registry for the service's own metrics (reading it loads prom-client). */
  readonly metrics: Registry;
  /** The service's metrics, without loading prom-client until scraped. */
  meter: ServiceMetrics;
}

function applyCors(reply: FastifyReply, origin: string): void {
  reply.header("Access-Control-Allow-Origin", origin);
  reply.header("Access-Control-Allow-Methods", CORS_METHODS);
  reply.header("Access-Control-Allow-Headers", CORS_HEADERS);
}

// No route declares a JSON schema: the schema compilers (ajv, fast-json-stringify; several MB) load
// only if one ever does, from fastify's own dependencies.
const fromFastify = createRequire(createRequire(import.meta.url).resolve("fastify"));
type CompilerFactory = (...args: unknown[]) => unknown;
const lazyCompilers = {
  buildValidator: (...args: unknown[]) =>
    (fromFastify("@fastify/ajv-compiler") as () => CompilerFactory)()(...args),
  buildSerializer: (...args: unknown[]) =>
    (fromFastify("@fastify/fast-json-stringify-compiler") as () => CompilerFactory)()(...args),
};

/**
 * A Fastify app with the platform's conventions: JSON `{error}` bodies with the right status for
 * every failure (never HTML, never a stack), CORS, OPTIONS → 204, and a Prometheus `/metrics`.
 */
export function createService(opts: ServiceOptions): Service {
  const origin = opts.corsOrigin ?? process.env.CORS_ORIGIN ?? "*";
  const corsPaths = opts.corsPaths ?? (() => true);
  const app = Fastify({
    logger: opts.logger ?? false,
    bodyLimit: 1_048_576,
    forceCloseConnections: true,
    schemaController: { compilersFactory: lazyCompilers as never },
  });
  const meter = serviceMetrics(opts.name);
  app.addHook("onResponse", async (req: FastifyRequest, reply: FastifyReply) => {
    meter.observe(
      req.method,
      req.routeOptions.url ?? "unmatched",
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
  });

  app.addHook("onRequest", async (req: FastifyRequest, reply: FastifyReply) => {
    if (req.method === "OPTIONS") {
      applyCors(reply, origin);
      return reply.code(204).send();
    }
    if (corsPaths(req.url)) applyCors(reply, origin);
  });

  // An empty JSON body (e.g. POST with Content-Type: application/json and no body) is allowed.
  app.addContentTypeParser("application/json", { parseAs: "string" }, (_req, body, done) => {
    const text = typeof body === "string" ? body : body.toString("utf8");
    if (text.trim() === "") return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(new HttpError(400, "Invalid JSON body"), undefined);
    }
  });

  app.setErrorHandler((err: Error & { statusCode?: number; validation?: unknown }, _req, reply) => {
    const status = err instanceof HttpError ? err.statusCode : (err.statusCode ?? 500);
    const message = status >= 500 && !(err instanceof HttpError) ? "Internal server error" : err.message;
    if (status >= 500 && !(err instanceof HttpError)) app.log.error(err);
    reply.code(status).type("application/json").send({ error: message });
  });

  app.setNotFoundHandler(
    opts.notFound ??
      ((req, reply) => {
        reply.code(404).send({ error: `Not found: ${req.method} ${req.url.split("?")[0]}` });
      }),
  );

  app.get("/metrics", async (_req, reply) => {
    reply.type(METRICS_CONTENT_TYPE);
    return meter.text();
  });

  return {
    app,
    meter,
    get metrics() {
      return meter.registry;
    },
  };
}

/** Listen and return the bound port (port 0 picks a free one). */
export async function listen(app: FastifyInstance, port: number, host = "127.0.0.1"): Promise<number> {
  await app.listen({ port, host });
  const addr = app.server.address();
  if (addr === null || typeof addr === "string") throw new Error("server has no TCP address");
  return addr.port;
}

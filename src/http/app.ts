import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createRequire } from "node:module";
import type { Response as InjectedResponse, InjectOptions } from "light-my-request";
import { createLogger, type Logger } from "../core/log.ts";
import { logRequestFailed, logStarted } from "../core/log-events.ts";
import { BodyError, readBody } from "./body.ts";
import { corsHeaders } from "./cors.ts";
import { HttpError } from "./errors.ts";
import { METRICS_CONTENT_TYPE, type ServiceMetrics, serviceMetrics } from "./metrics.ts";
import { json, type Reply, send, TAKEN_OVER, type TakenOver } from "./reply.ts";
import {
  type Handler,
  type HttpRequest,
  type Match,
  type Method,
  type RouteOptions,
  Router,
} from "./router.ts";

export interface HttpAppOptions {
  /** Service name, used in logs and metrics. */
  name: string;
  /** Value of Access-Control-Allow-Origin (CORS_ORIGIN, default "*"). */
  corsOrigin?: string;
  /** Which request URLs carry the CORS headers on normal answers; OPTIONS on any path always answers 204. */
  corsPaths?: (url: string) => boolean;
  /** Answers requests no route matched, writing the response itself (default: 404 JSON). */
  notFound?: (req: IncomingMessage, res: ServerResponse) => void;
  /** Largest request body accepted, in bytes (default 1 MiB). */
  bodyLimit?: number;
  /** The service's structured log (default: a logger named after the service). */
  log?: Logger;
}

type Inject = (
  dispatch: (req: IncomingMessage, res: ServerResponse) => void,
  opts: InjectOptions,
) => Promise<InjectedResponse>;

/** How long an idle keep-alive connection stays open: long enough to outlive a client's pool. */
const KEEP_ALIVE_MS = 72_000;

/**
 * A service on plain node:http with the platform's conventions: JSON `{error}` bodies with the right
 * status for every failure (never HTML, never a stack), CORS, OPTIONS → 204, HEAD on every GET route,
 * and a Prometheus `/metrics` counting every request by route.
 */
export class HttpApp {
  readonly server: Server;
  readonly meter: ServiceMetrics;
  readonly log: Logger;
  private readonly router = new Router();
  private readonly cors: Record<string, string>;
  private readonly corsPaths: (url: string) => boolean;
  private readonly bodyLimit: number;
  private readonly closeHooks: (() => Promise<void> | void)[] = [];

  constructor(private readonly opts: HttpAppOptions) {
    this.cors = corsHeaders(opts.corsOrigin ?? process.env.CORS_ORIGIN ?? "*");
    this.corsPaths = opts.corsPaths ?? (() => true);
    this.bodyLimit = opts.bodyLimit ?? 1_048_576;
    this.meter = serviceMetrics(opts.name);
    this.log = opts.log ?? createLogger(opts.name);
    this.server = createServer((req, res) => void this.handle(req, res));
    this.server.keepAliveTimeout = KEEP_ALIVE_MS;
    // No deadline on a whole request (an upload, a slow client): the body limit bounds what one costs.
    this.server.requestTimeout = 0;
    this.get("/metrics", async () => send(await this.meter.text(), METRICS_CONTENT_TYPE));
  }

  get(pattern: string, handler: Handler, opts: RouteOptions = {}): void {
    this.route("GET", pattern, handler, opts);
  }

  post(pattern: string, handler: Handler, opts: RouteOptions = {}): void {
    this.route("POST", pattern, handler, opts);
  }

  delete(pattern: string, handler: Handler, opts: RouteOptions = {}): void {
    this.route("DELETE", pattern, handler, opts);
  }

  /** `pattern` is an exact path or a prefix ending in `/*`. */
  route(method: Method, pattern: string, handler: Handler, opts: RouteOptions = {}): void {
    this.router.add({ method, pattern, handler, ...opts });
  }

  /** Runs when the app closes, before its connections are cut. */
  onClose(hook: () => Promise<void> | void): void {
    this.closeHooks.push(hook);
  }

  /** Listen and return the bound port (port 0 picks a free one). */
  listen(port: number, host = "127.0.0.1", backlog?: number): Promise<number> {
    return new Promise((resolve, reject) => {
      const failed = (err: Error) => reject(err);
      this.server.once("error", failed);
      this.server.listen(port, host, backlog, () => {
        this.server.off("error", failed);
        const addr = this.server.address();
        if (addr === null || typeof addr === "string") {
          reject(new Error("server has no TCP address"));
          return;
        }
        logStarted(this.log, { url: `http://${host}:${addr.port}` }, `${this.opts.name} listening`);
        resolve(addr.port);
      });
    });
  }

  /**
   * Answer one request in-process, without a socket (tests): light-my-request builds the request and
   * response objects, loaded on first use only.
   */
  inject(opts: InjectOptions | string): Promise<InjectedResponse> {
    const inject = createRequire(import.meta.url)("light-my-request") as Inject;
    return inject((req, res) => this.handle(req, res), typeof opts === "string" ? { url: opts } : opts);
  }

  /** Stop listening and cut every connection, open event streams included. */
  async close(): Promise<void> {
    for (const hook of this.closeHooks.splice(0)) await hook();
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const started = performance.now();
    const url = req.url ?? "/";
    const method = req.method ?? "GET";
    const q = url.indexOf("?");
    const path = q < 0 ? url : url.slice(0, q);
    const match = method === "OPTIONS" ? undefined : this.router.find(method, path);
    const route = match?.route.pattern ?? "unmatched";
    // Counted once answered: at once for an answer written here (no listener, no closure kept per
    // request on the hot path), on `finish` for a response a handler took over.
    const counted = () =>
      this.meter.observe(method, route, res.statusCode, (performance.now() - started) / 1000);
    if (method === "OPTIONS") {
      res.writeHead(204, this.cors);
      res.end();
      counted();
      return;
    }
    const cors = this.corsPaths(url) ? this.cors : undefined;
    const answered = (a: Reply | TakenOver) => {
      if (a === TAKEN_OVER) res.once("finish", counted);
      else {
        write(res, cors, a);
        counted();
      }
    };
    let answer: Reply | TakenOver | Promise<Reply | TakenOver>;
    try {
      if (path.includes("%")) validPath(path);
      if (match) answer = this.dispatch(match, req, res, method, path, q < 0 ? "" : url.slice(q + 1));
      else if (this.opts.notFound) {
        res.once("finish", counted);
        this.opts.notFound(req, res);
        return;
      } else answer = json({ error: `Not found: ${method} ${path}` }, 404);
    } catch (err) {
      answer = this.failure(err, method, path);
    }
    // Most answers are ready at once: no promise, no microtask on the hot path.
    if (answer instanceof Promise)
      answer.then(answered, (err: unknown) => answered(this.failure(err, method, path)));
    else answered(answer);
  }

  /** Guard, body (never for GET and HEAD), handler. */
  private dispatch(
    match: Match,
    req: IncomingMessage,
    res: ServerResponse,
    method: string,
    path: string,
    search: string,
  ): Reply | TakenOver | Promise<Reply | TakenOver> {
    const { route } = match;
    route.guard?.(req);
    const rest = match.rest === "" ? "" : decodeURIComponent(match.rest);
    if (method === "GET" || method === "HEAD")
      return route.handler(new Request(req, res, method, path, search, rest, undefined));
    return readBody(req, this.bodyLimit).then((body) =>
      route.handler(new Request(req, res, method, path, search, rest, body)),
    );
  }

  private failure(err: unknown, method: string, path: string): Reply {
    if (err instanceof BodyError) {
      const answer = json({ error: err.message }, err.statusCode);
      answer.headers.connection = "close";
      return answer;
    }
    if (err instanceof HttpError) return json({ error: err.message }, err.statusCode);
    logRequestFailed(this.log, method, path, 500, err);
    return json({ error: "Internal server error" }, 500);
  }
}

function write(res: ServerResponse, cors: Record<string, string> | undefined, answer: Reply): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  // A flat [name, value, …] list: with a headers object built per answer, node:http kept enough of
  // each one alive past a young-generation collection that the heap grew under load (RSS after
  // 3 s at c=32: 93–99 MB with an object, 64 MB with the list, and about 40% more answers).
  const head: (string | number)[] = [];
  if (cors) for (const name in cors) if (answer.headers[name] === undefined) head.push(name, cors[name]!);
  for (const name in answer.headers) head.push(name, answer.headers[name]!);
  head.push("content-length", Buffer.byteLength(answer.body));
  res.writeHead(answer.status, head);
  res.end(answer.body);
}

class Request implements HttpRequest {
  constructor(
    readonly raw: IncomingMessage,
    readonly res: ServerResponse,
    readonly method: string,
    readonly path: string,
    private readonly search: string,
    readonly rest: string,
    readonly body: unknown,
  ) {}

  get query(): URLSearchParams {
    return new URLSearchParams(this.search);
  }

  get queryObject(): Record<string, string> {
    return Object.fromEntries(new URLSearchParams(this.search));
  }
}

/** A path with a broken percent-escape is refused as a whole, whatever route it would reach. */
function validPath(path: string): void {
  try {
    decodeURIComponent(path);
  } catch {
    throw new HttpError(400, `'${path}' is not a valid url component`);
  }
}

export function createHttpApp(opts: HttpAppOptions): HttpApp {
  return new HttpApp(opts);
}

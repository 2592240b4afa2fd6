import type { IncomingMessage, ServerResponse } from "node:http";
import type { Reply, TakenOver } from "./reply.ts";

export type Method = "GET" | "POST" | "DELETE";

/** One request as a route handler sees it. */
export interface HttpRequest {
  readonly raw: IncomingMessage;
  readonly res: ServerResponse;
  readonly method: string;
  /** The path as sent, without the query string. */
  readonly path: string;
  readonly query: URLSearchParams;
  /** The query as an object (the last value of a repeated name). */
  readonly queryObject: Record<string, string>;
  /** Under a `prefix/*` route: the decoded rest of the path after the prefix; "" otherwise. */
  readonly rest: string;
  /** The parsed body (see readBody); undefined for GET and HEAD. */
  readonly body: unknown;
}

export type Handler = (req: HttpRequest) => Reply | TakenOver | Promise<Reply | TakenOver>;

export interface RouteOptions {
  /** Runs before the body is read; throw an HttpError to refuse the request. */
  guard?: (req: IncomingMessage) => void;
}

interface Route extends RouteOptions {
  method: Method;
  /** As registered: an exact path, or a prefix ending in `/*`. */
  pattern: string;
  handler: Handler;
}

export interface Match {
  route: Route;
  /** The raw (still percent-encoded) rest of the path under a prefix route. */
  rest: string;
}

/**
 * Exact paths first, then `prefix/*` routes, longest prefix first. Paths match as sent: case,
 * trailing slashes and doubled slashes all count. HEAD is answered by the GET route.
 */
export class Router {
  private readonly exact = new Map<string, Route>();
  private readonly prefixes: { prefix: string; route: Route }[] = [];

  add(route: Route): void {
    if (route.pattern.endsWith("/*")) {
      const prefix = route.pattern.slice(0, -1);
      if (this.prefixes.some((p) => p.prefix === prefix && p.route.method === route.method))
        throw new Error(`route ${route.method} ${route.pattern} registered twice`);
      this.prefixes.push({ prefix, route });
      this.prefixes.sort((a, b) => b.prefix.length - a.prefix.length);
      return;
    }
    const key = `${route.method} ${route.pattern}`;
    if (this.exact.has(key)) throw new Error(`route ${key} registered twice`);
    this.exact.set(key, route);
  }

  find(method: string, path: string): Match | undefined {
    const m = method === "HEAD" ? "GET" : method;
    const route = this.exact.get(`${m} ${path}`);
    if (route) return { route, rest: "" };
    for (const p of this.prefixes)
      if (p.route.method === m && path.startsWith(p.prefix))
        return { route: p.route, rest: path.slice(p.prefix.length) };
    return undefined;
  }
}

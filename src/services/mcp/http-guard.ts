import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { isLoopback } from "../agent/auth.ts";

/** Why an HTTP request to the MCP endpoints is refused, or undefined when it may pass. */
interface Refusal {
  status: 401 | 403;
  error: string;
}

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

function tokensEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function loopbackOrigin(origin: string): boolean {
  try {
    return LOOPBACK_HOSTS.has(new URL(origin).hostname);
  } catch {
    return false;
  }
}

/**
 * MCP over HTTP can place orders, so: with `MCP_API_TOKEN` set every request needs
 * `Authorization: Bearer <token>`; without it only loopback callers are served. A browser page from
 * another origin is refused either way (DNS-rebinding and cross-site requests carry its Origin).
 */
export function checkMcpHttpAccess(req: IncomingMessage, env: NodeJS.ProcessEnv): Refusal | undefined {
  const origin = req.headers.origin;
  if (origin && !loopbackOrigin(origin)) return { status: 403, error: `Origin ${origin} is not allowed` };
  const token = env.MCP_API_TOKEN;
  if (token) {
    const match = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? "");
    if (!match?.[1] || !tokensEqual(match[1].trim(), token)) {
      return { status: 401, error: "Missing or invalid bearer token" };
    }
    return undefined;
  }
  if (!isLoopback(req.socket.remoteAddress)) {
    return { status: 403, error: "MCP over HTTP answers loopback only unless MCP_API_TOKEN is set" };
  }
  return undefined;
}

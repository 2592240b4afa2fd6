import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { isIP } from "node:net";
import { hostname } from "node:os";
import { HttpError } from "../../http/errors.ts";

export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  return address === "::1" || address.startsWith("127.") || address.startsWith("::ffff:127.");
}

function tokensEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

interface ControlAccess {
  /** AGENT_API_TOKEN; without it control answers loopback callers only. */
  token: string | undefined;
  /** CORS_ORIGIN: the one foreign origin whose pages may use the controls ("*" names none). */
  corsOrigin: string;
}

/** The host part of a Host header ("name:port", "[v6]:port"), lower-cased; undefined if malformed. */
function hostnameOf(hostHeader: string): string | undefined {
  try {
    return new URL(`http://${hostHeader}`).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

/**
 * Names a loopback-only service answers to. An IP literal cannot be re-pointed, so only DNS names
 * matter: localhost (and *.localhost, which resolve to loopback) and this machine's own name. Any
 * other name reaching a loopback socket is a DNS rebinding of someone else's domain.
 */
export function answersToHost(hostHeader: string, machineName = hostname()): boolean {
  const name = hostnameOf(hostHeader);
  if (name === undefined || name === "") return false;
  if (isIP(name.replace(/^\[|\]$/g, "")) !== 0) return true;
  if (name === "localhost" || name.endsWith(".localhost")) return true;
  return name === machineName.toLowerCase();
}

/**
 * A browser page may drive the controls only from the service's own origin or from CORS_ORIGIN.
 * Browsers always send Origin on a POST; "null" (sandboxed frames, file://) is never trusted.
 */
function originAllowed(origin: string, hostHeader: string | undefined, corsOrigin: string): boolean {
  if (origin === "null") return false;
  const normalized = origin.replace(/\/+$/, "").toLowerCase();
  if (corsOrigin !== "*" && normalized === corsOrigin.replace(/\/+$/, "").toLowerCase()) return true;
  if (hostHeader === undefined) return false;
  try {
    return new URL(normalized).host === new URL(`http://${hostHeader}`).host;
  } catch {
    return false;
  }
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * Control endpoints (pause, resume, skill install). A browser page of another origin is refused
 * (403), so no web page can pause the agent through the user's browser. With a token configured,
 * `Authorization: Bearer <token>` is required (401 otherwise); without one they answer loopback
 * callers only, and only under a name the service answers to (403 for anyone else).
 */
export function checkControlAccess(req: IncomingMessage, access: ControlAccess): void {
  const host = header(req, "host");
  const origin = header(req, "origin");
  if (origin !== undefined && !originAllowed(origin, host, access.corsOrigin)) {
    throw new HttpError(
      403,
      `Control requests from origin ${origin} are refused (allowed: this service, CORS_ORIGIN)`,
    );
  }
  const fetchSite = header(req, "sec-fetch-site");
  if (
    origin === undefined &&
    fetchSite !== undefined &&
    fetchSite !== "same-origin" &&
    fetchSite !== "none"
  ) {
    throw new HttpError(403, "Control requests from another origin are refused");
  }
  if (access.token) {
    const match = /^Bearer\s+(.+)$/i.exec(header(req, "authorization") ?? "");
    if (!match || !tokensEqual(match[1]!.trim(), access.token)) {
      throw new HttpError(401, "Missing or invalid bearer token");
    }
    return;
  }
  if (!isLoopback(req.socket.remoteAddress)) {
    throw new HttpError(403, "Control endpoints answer loopback only unless AGENT_API_TOKEN is set");
  }
  if (host !== undefined && !answersToHost(host)) {
    throw new HttpError(
      403,
      `Control requests for host ${host} are refused: not a name this service answers to`,
    );
  }
}

import { timingSafeEqual } from "node:crypto";
import type { FastifyRequest } from "fastify";
import { HttpError } from "../../http/service.ts";

export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  return address === "::1" || address.startsWith("127.") || address.startsWith("::ffff:127.");
}

function tokensEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Control endpoints: with a token configured, `Authorization: Bearer <token>` is required (401
 * otherwise); without one they answer loopback callers only (403 for anyone else).
 */
export function checkControlAccess(req: FastifyRequest, token: string | undefined): void {
  if (token) {
    const header = req.headers.authorization ?? "";
    const match = /^Bearer\s+(.+)$/i.exec(header);
    if (!match || !tokensEqual(match[1]!.trim(), token)) {
      throw new HttpError(401, "Missing or invalid bearer token");
    }
    return;
  }
  if (!isLoopback(req.socket.remoteAddress)) {
    throw new HttpError(403, "Control endpoints answer loopback only unless AGENT_API_TOKEN is set");
  }
}

import type { IncomingMessage } from "node:http";

/** The client's source address, IPv4-mapped IPv6 written as plain IPv4: what per-IP limits count by. */
export function sourceAddress(req: IncomingMessage): string {
  const raw = req.socket.remoteAddress ?? "";
  return raw.startsWith("::ffff:") ? raw.slice(7) : raw;
}

import type { Server } from "node:http";
import type { Socket } from "node:net";
import { z } from "zod";

/**
 * Injected faults, for testing what a client does when the network misbehaves (`POST /sim/fault`):
 * - `late`: the request is processed, but the answer comes `delayMs` later (after the client gave up);
 * - `slow`: the request waits `delayMs` (queued on the way) before it is processed and answered;
 * - `reset`: the request is processed, then the connection is reset without an answer;
 * - `rate_limit`: the request is refused with HTTP 429 and not processed;
 * - `drop_ws`: every open WebSocket is cut at once (no close frame).
 * The first three apply to the next `count` requests of an endpoint (optionally one action or info type).
 */
type FaultKind = "late" | "slow" | "reset" | "rate_limit";

export interface Fault {
  kind: FaultKind;
  endpoint: "exchange" | "info";
  /** The exchange action type or info request type it applies to; any when absent. */
  type?: string;
  remaining: number;
  delayMs: number;
}

const faultSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.enum(["late", "slow", "reset", "rate_limit"]),
    endpoint: z.enum(["exchange", "info"]).default("exchange"),
    type: z.string().min(1).optional(),
    count: z.number().int().min(1).max(1_000).default(1),
    delayMs: z.number().int().min(0).max(60_000).default(3_000),
  }),
  z.object({ kind: z.literal("drop_ws") }),
]);

export class FaultError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export class SimFaults {
  private faults: Fault[] = [];
  private readonly webSockets = new Set<Socket>();

  /** Track the server's upgraded (WebSocket) connections so `drop_ws` can cut them. */
  attach(server: Server): void {
    server.on("upgrade", (_req, socket: Socket) => {
      this.webSockets.add(socket);
      socket.once("close", () => this.webSockets.delete(socket));
    });
  }

  /** Schedule a fault (or, for drop_ws, act now). */
  add(body: unknown): unknown {
    const r = faultSchema.safeParse(body ?? {});
    if (!r.success) {
      const issue = r.error.issues[0];
      throw new FaultError(400, `${issue?.path.join(".") || "body"}: ${issue?.message ?? "invalid"}`);
    }
    const f = r.data;
    if (f.kind === "drop_ws") return { status: "ok", dropped: this.dropWebSockets() };
    this.faults.push({
      kind: f.kind,
      endpoint: f.endpoint,
      ...(f.type ? { type: f.type } : {}),
      remaining: f.count,
      delayMs: f.delayMs,
    });
    return { status: "ok", pending: this.pending() };
  }

  clear(): void {
    this.faults = [];
  }

  /** Whether any fault waits to be applied (otherwise requests need no look at their type). */
  get armed(): boolean {
    return this.faults.length > 0;
  }

  pending(): Fault[] {
    return this.faults.map((f) => ({ ...f }));
  }

  dropWebSockets(): number {
    const n = this.webSockets.size;
    for (const s of this.webSockets) s.destroy();
    this.webSockets.clear();
    return n;
  }

  /** The fault to apply to this request, if one is due (its count is used up). */
  take(endpoint: "exchange" | "info", body: unknown): Fault | undefined {
    const type = typeOf(endpoint, body);
    const idx = this.faults.findIndex((f) => f.endpoint === endpoint && (!f.type || f.type === type));
    if (idx < 0) return undefined;
    const f = this.faults[idx]!;
    f.remaining -= 1;
    if (f.remaining <= 0) this.faults.splice(idx, 1);
    return f;
  }

  /** `POST /sim/fault` adds one, `GET /sim/faults` lists them, `DELETE /sim/faults` clears them. */
  admin(method: string, path: string, body: unknown): unknown {
    if (method === "POST" && path === "/sim/fault") return this.add(body);
    if (method === "GET" && path === "/sim/faults") return { faults: this.pending() };
    if (method === "DELETE" && path === "/sim/faults") {
      this.clear();
      return { status: "ok" };
    }
    throw new FaultError(404, `Not found: ${method} ${path}`);
  }
}

function typeOf(endpoint: "exchange" | "info", body: unknown): string | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const b = body as { type?: unknown; action?: { type?: unknown } };
  const t = endpoint === "info" ? b.type : b.action?.type;
  return typeof t === "string" ? t : undefined;
}

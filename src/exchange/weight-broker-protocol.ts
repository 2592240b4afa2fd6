/**
 * The weight broker's protocol: newline-delimited JSON over a Unix domain socket. A client asks
 * `take` and is answered `{id}` once the weight is granted, unless it sends `cancel` with the same id
 * first (the read was given up: the grant is not spent); `charge`, `limited`, `answered`, `failed`
 * and `cancel` are told and not answered. The broker tells every client `{type:"limited", api, ms}`
 * when one of them met a 429 (the limit is per IP: all back off). A line it cannot read is
 * answered `{error}` (with the take's id when it has one).
 */

export type BrokerRequest =
  | { type: "take"; id: number; api: string; weight: number; background: boolean }
  | { type: "charge"; api: string; weight: number; background: boolean }
  | { type: "limited"; api: string; retryAfterMs: number }
  | { type: "answered"; api: string }
  | { type: "failed"; api: string }
  | { type: "cancel"; id: number; api: string };

export type BrokerReply =
  | { id: number }
  | { type: "limited"; api: string; ms: number }
  | { id?: number; error: string };

/** Longest line either side accepts: a request is well under 1 KiB. */
export const MAX_LINE_BYTES = 4096;

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

const weightOf = (v: unknown): number | undefined =>
  typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : undefined;

/** One request line read, or why it cannot be (with the take's id when it had a readable one). */
export function parseRequest(line: string): BrokerRequest | { id?: number; error: string } {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { error: "not JSON" };
  }
  const r = record(value);
  if (!r) return { error: "not a JSON object" };
  const id = Number.isSafeInteger(r.id) ? (r.id as number) : undefined;
  const api = typeof r.api === "string" && r.api.length > 0 && r.api.length <= 512 ? r.api : undefined;
  const fail = (error: string) => (id === undefined ? { error } : { id, error });
  if (api === undefined) return fail("api must be a non-empty string");
  switch (r.type) {
    case "take":
    case "charge": {
      const weight = weightOf(r.weight);
      if (weight === undefined) return fail("weight must be a non-negative number");
      const background = r.background === true;
      if (r.type === "charge") return { type: "charge", api, weight, background };
      if (id === undefined) return { error: "take needs an integer id" };
      return { type: "take", id, api, weight, background };
    }
    case "limited":
      return { type: "limited", api, retryAfterMs: weightOf(r.retryAfterMs) ?? 0 };
    case "answered":
    case "failed":
      return { type: r.type, api };
    case "cancel":
      if (id === undefined) return { error: "cancel needs an integer id" };
      return { type: "cancel", id, api };
    default:
      return fail("type must be take, charge, limited, answered, failed or cancel");
  }
}

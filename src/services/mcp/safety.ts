import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import type { Network } from "../../config/defaults.ts";
import { D, type Dec } from "../../core/decimal.ts";
import { readJson, writeJsonAtomic } from "../../store/atomic.ts";
import { listWallets } from "../../wallet/index.ts";
import { ToolError } from "./tool.ts";

/** Optional operator policy (`HL_MCP_POLICY` = path of a JSON file); absent = no extra limits. */
const PolicySchema = z
  .object({
    max_order_size: z.number().positive().optional(),
    daily_notional_usd: z.number().positive().optional(),
    allowed_instruments: z.array(z.string()).optional(),
    allowed_strategies: z.array(z.string()).optional(),
    max_ticks: z.number().int().positive().optional(),
  })
  .strict();
type Policy = z.infer<typeof PolicySchema>;

export function loadPolicy(env: NodeJS.ProcessEnv): Policy {
  const path = env.HL_MCP_POLICY;
  if (!path) return {};
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new ToolError(`policy file ${path} is unreadable: ${(e as Error).message}`);
  }
  const parsed = PolicySchema.safeParse(raw);
  if (!parsed.success)
    throw new ToolError(`policy file ${path} is invalid: ${parsed.error.issues[0]?.message}`);
  return parsed.data;
}

interface NetworkChoice {
  network: Network;
  note?: string;
}

/** Whether a signing key is configured, by the same sources `hl` resolves it from (without decrypting). */
function hasKey(env: NodeJS.ProcessEnv): boolean {
  return Boolean(env.HL_PRIVATE_KEY || env.HL_KEYSTORE_ADDRESS) || listWallets(env).length > 0;
}

/**
 * The network an order-placing or live tool runs on. Mainnet needs `mainnet: true` and `confirm: true`;
 * `mock` (or no key at all) means the paper network, and the result says so.
 */
export function chooseNetwork(
  args: { mainnet?: boolean; confirm?: boolean; mock?: boolean },
  env: NodeJS.ProcessEnv,
  placesOrders: boolean,
): NetworkChoice {
  const envNet = env.HL_NETWORK as Network | undefined;
  const wantsMainnet = args.mainnet === true || (envNet === "mainnet" && !args.mock);
  if (args.mock) return { network: "paper", note: "mock: running on the paper network (sim world)" };
  if (wantsMainnet) {
    if (placesOrders && !(args.mainnet === true && args.confirm === true)) {
      throw new ToolError("Refusing mainnet: real money. Call again with mainnet: true and confirm: true.");
    }
    if (!hasKey(env)) throw new ToolError("mainnet needs a configured key (HL_PRIVATE_KEY or a keystore)");
    return { network: "mainnet" };
  }
  if (envNet === "paper" || !hasKey(env)) {
    return {
      network: "paper",
      note: envNet === "paper" ? undefined : "No key configured: running on the paper network (sim world)",
    };
  }
  return { network: envNet ?? "testnet" };
}

export function checkInstrument(policy: Policy, instrument: string): void {
  if (policy.allowed_instruments && !policy.allowed_instruments.includes(instrument)) {
    throw new ToolError(
      `policy: instrument ${instrument} is not allowed (allowed: ${policy.allowed_instruments.join(", ")})`,
    );
  }
}

export function checkStrategy(policy: Policy, strategy: string): void {
  if (policy.allowed_strategies && !policy.allowed_strategies.includes(strategy)) {
    throw new ToolError(
      `policy: strategy ${strategy} is not allowed (allowed: ${policy.allowed_strategies.join(", ")})`,
    );
  }
}

export function checkOrderSize(policy: Policy, size: number): void {
  if (policy.max_order_size !== undefined && size > policy.max_order_size) {
    throw new ToolError(`policy: order size ${size} exceeds max_order_size ${policy.max_order_size}`);
  }
}

export function checkTicks(policy: Policy, maxTicks: number | null | undefined): void {
  if (policy.max_ticks === undefined) return;
  if (maxTicks === null || maxTicks === undefined || maxTicks > policy.max_ticks) {
    throw new ToolError(`policy: max_ticks must be set and at most ${policy.max_ticks}`);
  }
}

interface Counters {
  day: string;
  notional_usd: string;
}

const countersPath = (dataDir: string) => join(dataDir, "mcp", "policy-counters.json");
const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function usedToday(dataDir: string, day: string): Dec {
  const read = readJson<Counters>(countersPath(dataDir));
  return read.kind === "ok" && read.value.day === day ? new D(read.value.notional_usd) : new D(0);
}

/**
 * Reserve notional against the policy's daily budget (UTC day), persisted under the data dir, before
 * the order is sent — so concurrent calls cannot together exceed it. Returns the reservation, to be
 * settled with what actually traded.
 */
export function reserveNotional(
  policy: Policy,
  dataDir: string,
  notional: Dec,
  nowMs = Date.now(),
): NotionalReservation | undefined {
  if (policy.daily_notional_usd === undefined) return undefined;
  const day = utcDay(nowMs);
  const used = usedToday(dataDir, day);
  const next = used.plus(notional);
  if (next.gt(policy.daily_notional_usd)) {
    throw new ToolError(
      `policy: daily notional limit ${policy.daily_notional_usd} USD would be exceeded (used ${used.toFixed(2)}, this order ${notional.toFixed(2)})`,
    );
  }
  writeJsonAtomic(countersPath(dataDir), { day, notional_usd: next.toFixed() });
  return { day, reserved: notional };
}

interface NotionalReservation {
  day: string;
  reserved: Dec;
}

/**
 * Replace a reservation by the notional that really traded: a refused order gives its reservation
 * back, a partial fill keeps only what filled. A reservation from an earlier UTC day is left alone
 * (that day's budget is closed and today's was never charged).
 */
export function settleNotional(dataDir: string, r: NotionalReservation, traded: Dec): void {
  const read = readJson<Counters>(countersPath(dataDir));
  if (read.kind !== "ok" || read.value.day !== r.day) return;
  const next = D.max(0, new D(read.value.notional_usd).minus(r.reserved).plus(traded));
  writeJsonAtomic(countersPath(dataDir), { day: r.day, notional_usd: next.toFixed() });
}

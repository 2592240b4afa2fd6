import { resolve } from "node:path";
import { UserError } from "../core/errors.ts";
import { DEFAULT_PORTS, NETWORKS, type Network, PUBLIC_API_URLS } from "./defaults.ts";

type Env = Record<string, string | undefined>;

export function dataDir(env: Env = process.env): string {
  return resolve(env.DATA_DIR ?? "./data");
}

// Plain checks, not a schema: every service reads its port here, and a schema library weighs several MB.
const isPort = (n: number) => Number.isInteger(n) && n >= 0 && n <= 65535;

/** Read a port from the environment, falling back to its default; a bad value is a clear error. */
export function envPort(name: string, fallback: number, env: Env = process.env): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const port = Number(raw);
  if (!isPort(port)) throw new UserError(`${name} must be a port number (0-65535), got "${raw}"`);
  return port;
}

export function simPort(env: Env = process.env): number {
  return envPort("SIM_PORT", DEFAULT_PORTS.sim, env);
}

/** Days of market history a fresh sim world backfills at start: HL_SIM_HISTORY_DAYS, else 30. */
export function simHistoryDays(env: Env = process.env): number {
  const raw = env.HL_SIM_HISTORY_DAYS;
  if (raw === undefined || raw === "") return 30;
  const days = Number(raw);
  if (!Number.isInteger(days) || days < 0 || days > 365)
    throw new UserError(`HL_SIM_HISTORY_DAYS must be a whole number of days (0-365), got "${raw}"`);
  return days;
}

/** The network from an explicit flag, else HL_NETWORK, else HL_TESTNET=false → mainnet, else paper. */
export function resolveNetwork(flag?: string, env: Env = process.env): Network {
  const raw = flag ?? env.HL_NETWORK;
  if (raw !== undefined && raw !== "") {
    if (!(NETWORKS as readonly string[]).includes(raw)) {
      throw new UserError(`unknown network "${raw}" (expected one of ${NETWORKS.join(", ")})`);
    }
    return raw as Network;
  }
  return "paper";
}

/** Base URL of the exchange API for a network; HL_API_URL overrides the chosen network's URL. */
export function apiUrl(network: Network, env: Env = process.env): string {
  const override = env.HL_API_URL;
  if (override) return override.replace(/\/+$/, "");
  if (network === "paper") return `http://127.0.0.1:${simPort(env)}`;
  return PUBLIC_API_URLS[network];
}

/**
 * Whether the sim world enforces the exchange's address-based request limit: on unless
 * HL_SIM_LIMITS is "off" (load benches and tests that send more than an address may).
 */
export function simLimitsOn(env: Env = process.env): boolean {
  const raw = env.HL_SIM_LIMITS;
  if (raw === undefined || raw === "" || raw === "on") return true;
  if (raw === "off") return false;
  throw new UserError(`HL_SIM_LIMITS must be "on" or "off", got "${raw}"`);
}

import { resolve } from "node:path";
import { DEFAULT_PORTS } from "../../config/defaults.ts";
import { UserError } from "../../core/errors.ts";
import { FEED_NAMES, feedPortOffset } from "../feeds/profiles.ts";

type Env = Record<string, string | undefined>;

export const SERVICE_KEYS = ["sim", "agent", "leaderboard", "mcp", "feeds", "isfr", "points"] as const;
export type ServiceKey = (typeof SERVICE_KEYS)[number];
export type UpPorts = Record<ServiceKey, number>;

/** How each port is named and changed, so a clash can say exactly which flag to use. */
export const PORT_SETTINGS: Record<ServiceKey, { flag: string; env: string; label: string }> = {
  sim: { flag: "--sim-port", env: "SIM_PORT", label: "sim world" },
  agent: { flag: "--agent-port", env: "PORT", label: "agent dashboard" },
  leaderboard: { flag: "--leaderboard-port", env: "LEADERBOARD_PORT", label: "leaderboard" },
  mcp: { flag: "--mcp-port", env: "MCP_PORT", label: "MCP server" },
  feeds: { flag: "--feeds-port", env: "FEEDS_PORT", label: "SWP feeds proxy" },
  isfr: { flag: "--isfr-port", env: "ISFR_PORT", label: "ISFR index" },
  points: { flag: "--points-port", env: "POINTS_PORT", label: "points API" },
};

/** The options of `hl up` as commander hands them over (strings, all optional). */
export interface UpFlags {
  simPort?: string;
  agentPort?: string;
  leaderboardPort?: string;
  mcpPort?: string;
  feedsPort?: string;
  isfrPort?: string;
  pointsPort?: string;
  dataDir?: string;
  seed?: string;
  speed?: string;
  wolfTick?: string;
  houseTick?: string;
  split?: boolean;
}

export interface UpConfig {
  ports: UpPorts;
  dataDir: string;
  seed: number;
  speed: number;
  /** Seconds between WOLF ticks (short, so the dashboard visibly moves). */
  wolfTick: number;
  /** Seconds between ticks of each house agent. */
  houseTick: number;
  /** Host every service binds and every URL names. */
  host: string;
  /** Each public service in its own process (`--split`, HL_UP_SPLIT=1) instead of one shared one. */
  split: boolean;
}

const FLAG_OF_KEY: Record<ServiceKey, keyof UpFlags> = {
  sim: "simPort",
  agent: "agentPort",
  leaderboard: "leaderboardPort",
  mcp: "mcpPort",
  feeds: "feedsPort",
  isfr: "isfrPort",
  points: "pointsPort",
};

// Port 0 is refused: the feed origins are numbered from the proxy's port, and every URL is printed up front.
// A plain check, not a schema: `hl up` runs for as long as the platform does, and its memory counts.
const isPort = (n: number) => Number.isInteger(n) && n >= 1 && n <= 65535;

function port(key: ServiceKey, flags: UpFlags, env: Env): number {
  const { flag, env: name } = PORT_SETTINGS[key];
  const fromFlag = flags[FLAG_OF_KEY[key]];
  const raw = fromFlag ?? env[name];
  if (raw === undefined || raw === "") return DEFAULT_PORTS[key];
  const parsed = Number(raw);
  if (!isPort(parsed)) {
    const source = fromFlag === undefined ? name : flag;
    throw new UserError(`${source} must be a port number (1-65535), got "${raw}"`);
  }
  return parsed;
}

function positive(name: string, raw: string | undefined, fallback: number, max: number): number {
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!(Number.isFinite(n) && n > 0 && n <= max))
    throw new UserError(`${name} must be a number above 0 and at most ${max}, got "${raw}"`);
  return n;
}

export function upConfig(flags: UpFlags, env: Env = process.env): UpConfig {
  const ports = Object.fromEntries(SERVICE_KEYS.map((k) => [k, port(k, flags, env)])) as UpPorts;
  const seedRaw = flags.seed ?? "1";
  const seed = Number(seedRaw);
  if (!(Number.isInteger(seed) && seed >= 0 && seed < 2 ** 32))
    throw new UserError(`--seed must be a whole number from 0 to 4294967295, got "${seedRaw}"`);
  return {
    ports,
    dataDir: resolve(flags.dataDir ?? env.DATA_DIR ?? "./data"),
    seed,
    speed: positive("--speed", flags.speed, 1, 10_000),
    wolfTick: positive("--wolf-tick", flags.wolfTick, 5, 3600),
    houseTick: positive("--house-tick", flags.houseTick, 5, 3600),
    host: "127.0.0.1",
    split: flags.split === true || env.HL_UP_SPLIT === "1",
  };
}

/** Every port `hl up` will bind, with the service that binds it and the setting that moves it. */
export function portClaims(ports: UpPorts): { port: number; what: string; key: ServiceKey }[] {
  const claims = SERVICE_KEYS.map((key) => ({ port: ports[key], what: PORT_SETTINGS[key].label, key }));
  for (const name of FEED_NAMES) {
    const offset = feedPortOffset(name);
    claims.push({ port: ports.feeds + offset, what: `${name} feed (feeds port + ${offset})`, key: "feeds" });
  }
  return claims;
}

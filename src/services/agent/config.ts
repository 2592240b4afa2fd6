import { DEFAULT_PORTS, NETWORKS, type Network } from "../../config/defaults.ts";
import { dataDir, envPort } from "../../config/env.ts";
import { UserError } from "../../core/errors.ts";
import { type RestartPolicy, restartPolicyFromEnv } from "./restart-policy.ts";

const RUN_MODES = ["wolf", "strategy", "mcp"] as const;
export type RunMode = (typeof RUN_MODES)[number];

/** Everything the agent service reads from its environment (each documented in the README). */
export interface AgentConfig {
  port: number;
  host: string;
  dataDir: string;
  mode: RunMode;
  network: Network;
  corsOrigin: string;
  /** Bearer token for control endpoints; without it they are loopback-only. */
  apiToken: string | undefined;
  /** Hosting variant: every unmatched path is reverse-proxied here. */
  gatewayUrl: string | undefined;
  strategy: string;
  instrument: string;
  /** Seconds between ticks, when set (strategy mode; wolf mode when WOLF_TICK is unset). */
  tickInterval: number | undefined;
  wolf: {
    preset?: string;
    budget?: string;
    slots?: string;
    leverage?: string;
    tick?: number;
    /** JSON file of WOLF config fields (`hl wolf run --config`), from WOLF_CONFIG. */
    configFile?: string;
  };
  /** Links to sibling services shown on the dashboard (HL_LINKS, a JSON array of {label, href}). */
  links: DashboardLink[];
  /** A pause longer than this many seconds is alerted (AGENT_PAUSE_ALERT_S, default 600). */
  pauseAlertS: number;
  /** When the supervisor gives up on the trading child (HL_SUPERVISOR_* env). */
  restart: RestartPolicy;
}

/** The agent service's restart policy unless HL_SUPERVISOR_* say otherwise. */
const AGENT_RESTART_POLICY: RestartPolicy = {
  maxRestarts: 10,
  healthyAfterMs: 60_000,
  baseBackoffMs: 1000,
};

/** `href` may contain `{host}`, replaced in the browser by the host the dashboard was opened on. */
export interface DashboardLink {
  label: string;
  href: string;
}

// Checked by hand, not with a schema: the agent service at rest should not carry a schema library.
function asLinks(v: unknown): DashboardLink[] | undefined {
  if (!Array.isArray(v)) return undefined;
  const links: DashboardLink[] = [];
  for (const item of v as unknown[]) {
    const { label, href } = (item ?? {}) as Record<string, unknown>;
    if (typeof label !== "string" || typeof href !== "string" || label === "" || href === "")
      return undefined;
    links.push({ label, href });
  }
  return links;
}

function dashboardLinks(env: Env): DashboardLink[] {
  const raw = nonEmpty(env.HL_LINKS);
  if (raw === undefined) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new UserError("HL_LINKS must be a JSON array of {label, href}");
  }
  const links = asLinks(parsed);
  if (!links) throw new UserError("HL_LINKS must be a JSON array of {label, href}");
  return links;
}

type Env = Record<string, string | undefined>;

function seconds(name: string, env: Env): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === "") return undefined;
  const n = Number(raw);
  if (!(Number.isFinite(n) && n > 0))
    throw new UserError(`${name} must be a positive number of seconds, got "${raw}"`);
  return n;
}

function nonEmpty(v: string | undefined): string | undefined {
  return v === undefined || v === "" ? undefined : v;
}

/** HL_NETWORK wins; the predecessor's HL_TESTNET=false still selects mainnet, =true testnet. */
function agentNetwork(env: Env): Network {
  const explicit = nonEmpty(env.HL_NETWORK);
  if (explicit) {
    if (!(NETWORKS as readonly string[]).includes(explicit)) {
      throw new UserError(`HL_NETWORK must be one of ${NETWORKS.join(", ")}, got "${explicit}"`);
    }
    return explicit as Network;
  }
  const testnet = nonEmpty(env.HL_TESTNET)?.toLowerCase();
  if (testnet === "false") return "mainnet";
  if (testnet === "true") return "testnet";
  return "paper";
}

/** What RUN_MODE=strategy trades unless STRATEGY / INSTRUMENT say otherwise. */
export const DEFAULT_STRATEGY = "engine_mm";
export const DEFAULT_INSTRUMENT = "ETH-PERP";

export function readAgentConfig(env: Env = process.env): AgentConfig {
  const mode = (nonEmpty(env.RUN_MODE) ?? "wolf").toLowerCase();
  if (!(RUN_MODES as readonly string[]).includes(mode)) {
    throw new UserError(`Unknown RUN_MODE: ${mode}. Use wolf, strategy, or mcp.`);
  }
  return {
    port: envPort("PORT", DEFAULT_PORTS.agent, env),
    host: nonEmpty(env.HOST) ?? "0.0.0.0",
    dataDir: dataDir(env),
    mode: mode as RunMode,
    network: agentNetwork(env),
    corsOrigin: nonEmpty(env.CORS_ORIGIN) ?? "*",
    apiToken: nonEmpty(env.AGENT_API_TOKEN),
    gatewayUrl: nonEmpty(env.AI_GATEWAY_URL)?.replace(/\/+$/, ""),
    strategy: nonEmpty(env.STRATEGY) ?? DEFAULT_STRATEGY,
    instrument: nonEmpty(env.INSTRUMENT) ?? DEFAULT_INSTRUMENT,
    tickInterval: seconds("TICK_INTERVAL", env),
    wolf: {
      preset: nonEmpty(env.WOLF_PRESET),
      budget: nonEmpty(env.WOLF_BUDGET),
      slots: nonEmpty(env.WOLF_SLOTS),
      leverage: nonEmpty(env.WOLF_LEVERAGE),
      tick: seconds("WOLF_TICK", env),
      configFile: nonEmpty(env.WOLF_CONFIG),
    },
    links: dashboardLinks(env),
    pauseAlertS: seconds("AGENT_PAUSE_ALERT_S", env) ?? 600,
    restart: restartPolicyFromEnv(AGENT_RESTART_POLICY, env),
  };
}

/**
 * The `hl` arguments of the trading child for a mode (argument arrays, never a shell string).
 * Every producer writes under the same DATA_DIR root the status reader reads.
 */
export function childArgs(cfg: AgentConfig): string[] | undefined {
  // The operator chose mainnet in the deployment's environment: that is the child's --yes.
  const consent = cfg.network === "mainnet" ? ["--yes"] : [];
  const common = ["--network", cfg.network, ...consent, "--data-dir", cfg.dataDir];
  if (cfg.mode === "wolf") {
    const args = ["wolf", "run", ...common];
    if (cfg.wolf.preset) args.push("--preset", cfg.wolf.preset);
    if (cfg.wolf.configFile) args.push("--config", cfg.wolf.configFile);
    if (cfg.wolf.budget) args.push("--budget", cfg.wolf.budget);
    if (cfg.wolf.slots) args.push("--slots", cfg.wolf.slots);
    if (cfg.wolf.leverage) args.push("--leverage", cfg.wolf.leverage);
    const tick = cfg.wolf.tick ?? cfg.tickInterval;
    if (tick !== undefined) args.push("--tick", String(tick));
    return args;
  }
  if (cfg.mode === "strategy") {
    return ["run", cfg.strategy, "-i", cfg.instrument, "--tick", String(cfg.tickInterval ?? 10), ...common];
  }
  return undefined;
}

/**
 * The `hl` arguments of the guard-only job that protects WOLF's open slots while the trader is paused
 * or given up on; none in strategy mode (its positions rest on the exchange backstops alone).
 */
export function guardArgs(cfg: AgentConfig): string[] | undefined {
  if (cfg.mode !== "wolf") return undefined;
  const consent = cfg.network === "mainnet" ? ["--yes"] : [];
  return ["agent", "guard", "--network", cfg.network, ...consent, "--data-dir", cfg.dataDir];
}

/** Expected seconds between ticks of the child, used for staleness. */
export function tickSeconds(cfg: AgentConfig): number {
  if (cfg.mode === "wolf") return cfg.wolf.tick ?? cfg.tickInterval ?? 60;
  return cfg.tickInterval ?? 10;
}

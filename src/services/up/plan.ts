import { join } from "node:path";
import { UserError } from "../../core/errors.ts";
import { NUNCHI_BUILDER } from "../../wallet/builder-codes.ts";
import { type DashboardLink, DEFAULT_INSTRUMENT, DEFAULT_STRATEGY } from "../agent/config.ts";
import type { ServiceKey, UpConfig } from "./config.ts";

/** One supervised `hl` child process of `hl up`. */
export interface ChildSpec {
  /** Short name: log file, table row, messages. */
  name: string;
  args: string[];
  env: Record<string, string>;
  /** Page or endpoint a person opens (printed in the table), when the child serves one. */
  url?: string;
  /** URL answering 200 once the child is ready. */
  healthUrl?: string;
  /** Data directory holding the child's paper wallet, for trading children. */
  walletDir?: string;
  /** Name on the leaderboard, for trading children (at most 32 characters). */
  displayName?: string;
  /** Builder code this trading child's paper wallet approves before it starts. */
  builder?: string;
  /** Children stop in rounds: traders first (they save state), then services, the sim world last. */
  stopRound: 0 | 1 | 2;
  /** How long SIGTERM may take before SIGKILL. */
  stopTimeoutMs: number;
  /** The services this child runs in one process (see combine.ts), when it hosts several. */
  hosts?: ChildSpec[];
}

/**
 * The house agents racing the WOLF agent on the leaderboard, one strategy per market. The BTCSWP maker
 * routes its orders through an eligible points builder code (approved at start), so the points
 * service has real launch activity to score.
 */
export const HOUSE_AGENTS: readonly { strategy: string; instrument: string; builder?: string }[] = [
  { strategy: "simple_mm", instrument: "ETH-PERP" },
  { strategy: "avellaneda_mm", instrument: "BTC-PERP" },
  { strategy: "momentum_breakout", instrument: "SOL-PERP" },
  { strategy: "simple_mm", instrument: "BTCSWP-USDYP", builder: NUNCHI_BUILDER },
];

/** The weight broker's socket, in every child's environment (see src/exchange/weight-broker.ts). */
const WEIGHT_BROKER_VAR = "HL_WEIGHT_BROKER";

/**
 * How `hl up` divides Hyperliquid's 1200 weight a minute per IP among its children (request weight
 * per minute, each child's own budget: for its ticks' reads, and for its scans too when no weight
 * broker lends them what the IP leaves): the WOLF agent, the house agents together and the public
 * services together (whose start-up reads need a bucket that size to answer within seconds), with
 * 100 left for the user's own `hl` commands on the same address. Split
 * children (`--split`) divide their group's share evenly.
 */
export const UP_WEIGHT_SHARES = { agent: 350, houses: 300, services: 450 } as const;
/** The public services `hl up` runs (leaderboard, feeds, ISFR, points, MCP). */
const SERVICE_COUNT = 5;
/**
 * A `--split` child's least budget: a process alone reads its own market list and account at start,
 * which a smaller bucket would stretch over a minute. Split children together may then be allowed
 * more than the IP's 1200; the sim's 429 (and the back-off it starts) paces them if they spend it.
 */
const MIN_SPLIT_CHILD_WEIGHT = 150;

export function urls(cfg: UpConfig): Record<ServiceKey, string> {
  const at = (port: number) => `http://${cfg.host}:${port}`;
  const p = cfg.ports;
  return {
    sim: at(p.sim),
    agent: at(p.agent),
    leaderboard: at(p.leaderboard),
    mcp: at(p.mcp),
    feeds: at(p.feeds),
    isfr: at(p.isfr),
    points: at(p.points),
  };
}

/** The BTCSWP feed's own origin (the first feed port after the proxy). */
function btcswpFeedUrl(cfg: UpConfig): string {
  return `http://${cfg.host}:${cfg.ports.feeds + 1}`;
}

/** Links on the agent dashboard: each a real page of its service; `{host}` is the browser's host. */
export function dashboardLinks(cfg: UpConfig): DashboardLink[] {
  const p = cfg.ports;
  return [
    { label: "Leaderboard", href: `http://{host}:${p.leaderboard}/?network=paper` },
    { label: "SWP feeds", href: `http://{host}:${p.feeds}/` },
    { label: "ISFR", href: `http://{host}:${p.isfr}/isfr/` },
    { label: "Points", href: `http://{host}:${p.points}/points/` },
  ];
}

/** The main agent `hl up` runs: WOLF, or with RUN_MODE=strategy the STRATEGY on INSTRUMENT. */
function mainAgent(env: Record<string, string | undefined>): {
  mode: "wolf" | "strategy";
  displayName: string;
} {
  const mode = (env.RUN_MODE || "wolf").toLowerCase();
  if (mode === "wolf") return { mode, displayName: "WOLF agent" };
  if (mode !== "strategy")
    throw new UserError(`hl up runs its main agent with RUN_MODE=wolf or RUN_MODE=strategy, got "${mode}"`);
  const strategy = env.STRATEGY || DEFAULT_STRATEGY;
  const instrument = (env.INSTRUMENT || DEFAULT_INSTRUMENT).replace(/-PERP$/, "");
  return { mode, displayName: `agent ${strategy} ${instrument}`.slice(0, 32) };
}

/**
 * Every child of `hl up` with its arguments and environment. Each starts from `baseEnv` (the
 * user's environment) with the paper network pinned to this sim world and no real key: every
 * trading child signs with the paper wallet of its own data directory.
 */
export function plan(
  cfg: UpConfig,
  baseEnv: Record<string, string | undefined>,
  opts: { weightBroker?: string } = {},
): ChildSpec[] {
  const u = urls(cfg);
  const p = cfg.ports;
  const host = cfg.host;
  const inherited: Record<string, string> = {};
  for (const [k, v] of Object.entries(baseEnv))
    if (v !== undefined && k !== WEIGHT_BROKER_VAR) inherited[k] = v;
  // The weight broker keeps one budget for every child (and their children): weight one leaves idle
  // is another's. A budget the user set is each child's own instead, as before.
  const broker = opts.weightBroker && !baseEnv.HL_RATE_WEIGHT_PER_MIN ? opts.weightBroker : undefined;
  const common: Record<string, string> = {
    ...inherited,
    ...(broker ? { [WEIGHT_BROKER_VAR]: broker } : {}),
    HL_NETWORK: "paper",
    HL_API_URL: u.sim,
    SIM_PORT: String(p.sim),
    HL_PRIVATE_KEY: "",
    DATA_DIR: cfg.dataDir,
  };
  // Every child shares the loopback address, as it would share one IP live: each gets its part of
  // the exchange's per-IP weight (its own budget should the broker be gone), unless the user set one
  // budget for all.
  const budget = (weight: number): Record<string, string> => ({
    HL_RATE_WEIGHT_PER_MIN: baseEnv.HL_RATE_WEIGHT_PER_MIN || String(weight),
  });
  // Split children (--split) each read their own market list and account at start: at least 150 each.
  const share = (group: number, n: number) =>
    cfg.split ? Math.max(MIN_SPLIT_CHILD_WEIGHT, Math.floor(group / n)) : Math.floor(group / n);
  const serviceShare = share(UP_WEIGHT_SHARES.services, SERVICE_COUNT);
  const service = (name: string, args: string[], env: Record<string, string>, rest: Partial<ChildSpec>) => ({
    name,
    args,
    env: { ...common, ...budget(serviceShare), ...env },
    stopRound: 1 as const,
    stopTimeoutMs: 10_000,
    ...rest,
  });

  const agentDir = join(cfg.dataDir, "agent");
  const main = mainAgent(baseEnv);
  const children: ChildSpec[] = [
    {
      name: "sim",
      args: ["sim", "serve", "--port", String(p.sim), "--host", host, "--seed", String(cfg.seed)],
      env: common,
      url: u.sim,
      healthUrl: `${u.sim}/sim/health`,
      stopRound: 2,
      stopTimeoutMs: 10_000,
    },
    {
      name: "agent",
      args: ["agent", "serve", "--port", String(p.agent), "--host", host],
      env: {
        ...common,
        ...budget(UP_WEIGHT_SHARES.agent),
        PORT: String(p.agent),
        RUN_MODE: main.mode,
        DATA_DIR: agentDir,
        // Its alerts (and its trading child's) name it: several agents may share one webhook.
        HL_AGENT_NAME: main.displayName,
        WOLF_PRESET: baseEnv.WOLF_PRESET || "paper_10k",
        WOLF_TICK: String(cfg.wolfTick),
        TICK_INTERVAL: baseEnv.TICK_INTERVAL || String(cfg.wolfTick),
        HL_LINKS: JSON.stringify(dashboardLinks(cfg)),
      },
      url: `${u.agent}/`,
      healthUrl: `${u.agent}/health`,
      walletDir: agentDir,
      displayName: main.displayName,
      stopRound: 0,
      // The agent service itself gives its WOLF child 15 s to save state.
      stopTimeoutMs: 20_000,
    },
  ];
  if (cfg.speed !== 1) children[0]!.args.push("--speed", String(cfg.speed));

  HOUSE_AGENTS.forEach((h, i) => {
    const dir = join(cfg.dataDir, `house-${i + 1}`);
    const displayName = `house ${h.strategy} ${h.instrument.replace(/-PERP$/, "")}`;
    children.push({
      name: `house-${i + 1}`,
      args: [
        "run",
        h.strategy,
        "-i",
        h.instrument,
        "--tick",
        String(cfg.houseTick),
        "--network",
        "paper",
        // BTCSWP trades near 75,000: keep the default 1-contract quotes inside the house risk limits.
        ...(h.instrument === "BTCSWP-USDYP" ? ["-p", "base_size=0.01", "-p", "max_inventory=0.1"] : []),
      ],
      env: {
        ...common,
        ...budget(share(UP_WEIGHT_SHARES.houses, HOUSE_AGENTS.length)),
        DATA_DIR: dir,
        HL_AGENT_NAME: displayName,
        ...(h.builder ? { BUILDER_ADDRESS: h.builder, BUILDER_FEE_TENTHS_BPS: "10" } : {}),
      },
      walletDir: dir,
      ...(h.builder ? { builder: h.builder } : {}),
      displayName,
      stopRound: 0,
      stopTimeoutMs: 15_000,
    });
  });

  // The agents' wallets, offered on the points page (each once its registration shows it exists).
  const localAgents = children.flatMap((c) =>
    c.walletDir && c.displayName ? [{ name: c.displayName, dir: c.walletDir }] : [],
  );
  children.push(
    service(
      "leaderboard",
      ["leaderboard", "serve", "--port", String(p.leaderboard)],
      {
        LEADERBOARD_PORT: String(p.leaderboard),
        // Its agents trade on this sim world: the paper board reads it (no real network is asked).
        HL_API_URL_PAPER: u.sim,
        // Every 30 s: five agents' accounts, within the services' share of the IP's weight.
        LEADERBOARD_REFRESH_S: "30",
      },
      { url: `${u.leaderboard}/?network=paper`, healthUrl: `${u.leaderboard}/health` },
    ),
    service(
      "feeds",
      ["feeds", "serve", "--port", String(p.feeds), "--network", "paper"],
      { FEEDS_PORT: String(p.feeds) },
      { url: `${u.feeds}/`, healthUrl: `${btcswpFeedUrl(cfg)}/healthz` },
    ),
    service(
      "isfr",
      ["isfr", "serve", "--port", String(p.isfr), "--network", "paper"],
      { ISFR_PORT: String(p.isfr), YIELDS_API_URL: `${u.sim}/yields`, ISFR_SNAPSHOT_INTERVAL_S: "15" },
      { url: `${u.isfr}/isfr/`, healthUrl: `${u.isfr}/isfr/health` },
    ),
    service(
      "points",
      ["points", "serve", "--port", String(p.points), "--network", "paper"],
      {
        POINTS_PORT: String(p.points),
        FEEDS_PORT: String(p.feeds),
        BTCSWP_FEED_URL: btcswpFeedUrl(cfg),
        POINTS_STATS_URL: `${u.sim}/stats`,
        POINTS_LOCAL_AGENTS: JSON.stringify(localAgents),
      },
      { url: `${u.points}/points/`, healthUrl: `${u.points}/points/market-config` },
    ),
    service(
      "mcp",
      ["mcp", "serve", "--transport", "http", "--port", String(p.mcp), "--host", host],
      // Its tools (wolf_status, journal, memory, judge, HOWL) read the running agent's data.
      { MCP_PORT: String(p.mcp), DATA_DIR: agentDir },
      { url: `${u.mcp}/mcp`, healthUrl: `${u.mcp}/health` },
    ),
  );
  return children;
}

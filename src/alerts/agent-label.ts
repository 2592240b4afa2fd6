import { basename, dirname, resolve } from "node:path";

type Env = Record<string, string | undefined>;

/**
 * Which agent a trading process is, for its alerts: one webhook often hears several agents (`hl up`'s
 * WOLF agent and house agents, a fleet of agent services), and an alert must say whose position it is
 * about. HL_AGENT_NAME (`hl up` sets each agent's leaderboard name) and the agent's data directory,
 * by its last two parts (e.g. `data/house-1`, the name of its log file under `hl up`).
 */
export function agentLabel(agentDataDir: string, env: Env): string {
  const abs = resolve(agentDataDir);
  const dir = `${basename(dirname(abs))}/${basename(abs)}`;
  const name = env.HL_AGENT_NAME?.trim();
  return name ? `${name}, ${dir}` : dir;
}

/** The `source` of a trading process's alerts: what runs (command, instrument, network) and whose agent. */
export function agentAlertSource(run: string, agentDataDir: string, env: Env): string {
  return `${run} · ${agentLabel(agentDataDir, env)}`;
}

import { homedir } from "node:os";
import { join, resolve } from "node:path";

export type Env = Record<string, string | undefined>;

/** The agent's home for secrets: `HL_AGENT_HOME`, else `~/.hl-agent`. */
export function agentHome(env: Env = process.env): string {
  return env.HL_AGENT_HOME ? resolve(env.HL_AGENT_HOME) : join(homedir(), ".hl-agent");
}

export function keystoreDir(env: Env = process.env): string {
  return join(agentHome(env), "keystore");
}

export function envFilePath(env: Env = process.env): string {
  return join(agentHome(env), "env");
}

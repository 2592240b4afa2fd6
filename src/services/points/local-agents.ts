import { z } from "zod";
import type { Network } from "../../config/defaults.ts";
import { UserError } from "../../core/errors.ts";
import { readRegistration } from "../agent/account-pnl.ts";
import { isWalletAddress } from "./config.ts";

/** An agent trading on this machine: its name and the data directory holding its wallet. */
export interface LocalAgent {
  name: string;
  dir: string;
}

/** A local agent's wallet, offered on the points page as a one-click lookup. */
export interface LocalAgentWallet {
  name: string;
  address: string;
}

const localAgents = z.array(z.object({ name: z.string().min(1), dir: z.string().min(1) }));

/** POINTS_LOCAL_AGENTS: JSON `[{name, dir}]` (`hl up` writes it); unset or empty: none. */
export function parseLocalAgents(raw: string | undefined): LocalAgent[] {
  if (!raw?.trim()) return [];
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new UserError("POINTS_LOCAL_AGENTS must be JSON: [{name, dir}, …]");
  }
  const parsed = localAgents.safeParse(value);
  if (!parsed.success) throw new UserError("POINTS_LOCAL_AGENTS must be JSON: [{name, dir}, …]");
  return parsed.data;
}

/**
 * The wallets of the local agents that exist on `network`: an agent counts once its registration
 * (`leaderboard.json` in its data directory, written when the leaderboard accepted the wallet and
 * read its account from the exchange) names that network. An agent not registered yet is left out,
 * never guessed. Read on each call: the registrations appear while `hl up` starts.
 */
export function localAgentWallets(agents: readonly LocalAgent[], network: Network): LocalAgentWallet[] {
  return agents.flatMap((agent) => {
    const reg = readRegistration(agent.dir);
    if (!reg || reg.network !== network || !isWalletAddress(reg.address)) return [];
    return [{ name: agent.name, address: reg.address }];
  });
}

import { join } from "node:path";
import { readJson, writeJsonAtomic } from "../../store/atomic.ts";
import { REGISTRATION_FILE, type Registration } from "../agent/account-pnl.ts";

interface TradingAgent {
  name: string;
  /** Data directory whose `paper/key.json` holds the agent's paper wallet. */
  walletDir: string;
  displayName: string;
}

/** The paper wallet address an agent's exchange client created (or undefined until it has). */
function paperAddress(walletDir: string): string | undefined {
  const r = readJson<{ address?: unknown }>(join(walletDir, "paper", "key.json"));
  return r.kind === "ok" && typeof r.value.address === "string" ? r.value.address : undefined;
}

/**
 * Register every agent on the leaderboard's paper board as soon as its wallet exists and the
 * leaderboard answers; retries each second until all are in or `signal` aborts. Registering an
 * address twice is harmless (the leaderboard keeps the first baseline), so restarts need no bookkeeping.
 */
async function registerAgents(
  leaderboardUrl: string,
  agents: readonly TradingAgent[],
  signal: AbortSignal,
  onRegistered: (agent: TradingAgent, address: string) => void,
): Promise<void> {
  const pending = new Set(agents);
  while (pending.size > 0 && !signal.aborted) {
    for (const agent of [...pending]) {
      const address = paperAddress(agent.walletDir);
      if (!address) continue;
      try {
        const res = await fetch(`${leaderboardUrl}/api/register`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ address, network: "paper", display_name: agent.displayName }),
          signal: AbortSignal.any([signal, AbortSignal.timeout(15_000)]),
        });
        if (!res.ok) {
          await res.body?.cancel();
          continue;
        }
        const answer = (await res.json().catch(() => ({}))) as { initial_account_value?: unknown };
        if (typeof answer.initial_account_value === "number") {
          // The baseline the leaderboard keeps: the dashboard measures its account PnL from it too.
          const reg: Registration = {
            network: "paper",
            address,
            initial_account_value: String(answer.initial_account_value),
          };
          writeJsonAtomic(join(agent.walletDir, REGISTRATION_FILE), reg);
        }
        pending.delete(agent);
        onRegistered(agent, address);
      } catch {
        // not up yet, or the exchange was slow: the next round retries
      }
    }
    if (pending.size > 0) await new Promise((r) => setTimeout(r, 1000));
  }
}

/**
 * Before any trader starts: create each agent's paper wallet (the one its exchange client will load)
 * and register it on the paper board, so the leaderboard's baseline is the untouched account and its
 * PnL matches the dashboard's to the cent. Resolves once every agent is registered (or `signal` aborts).
 */
export async function registerBeforeTrading(
  leaderboardUrl: string,
  agents: readonly TradingAgent[],
  signal: AbortSignal,
  onRegistered: (agent: TradingAgent, address: string) => void,
): Promise<void> {
  // Loaded here, not at the top: the long-lived `hl up` process keeps the exchange client out otherwise.
  const { loadOrCreatePaperWallet } = await import("../../exchange/signer.ts");
  for (const agent of agents) loadOrCreatePaperWallet({ DATA_DIR: agent.walletDir });
  await registerAgents(leaderboardUrl, agents, signal, onRegistered);
}

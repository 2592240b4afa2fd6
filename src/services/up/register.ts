import { join } from "node:path";
import { readJson } from "../../store/atomic.ts";

export interface TradingAgent {
  name: string;
  /** Data directory whose `paper/key.json` holds the agent's paper wallet. */
  walletDir: string;
  displayName: string;
}

/** The paper wallet address an agent's exchange client created (or undefined until it has). */
export function paperAddress(walletDir: string): string | undefined {
  const r = readJson<{ address?: unknown }>(join(walletDir, "paper", "key.json"));
  return r.kind === "ok" && typeof r.value.address === "string" ? r.value.address : undefined;
}

/**
 * Register every agent on the leaderboard's paper board as soon as its wallet exists and the
 * leaderboard answers; retries each second until all are in or `signal` aborts. Registering an
 * address twice is harmless (the leaderboard keeps the first baseline), so restarts need no bookkeeping.
 */
export async function registerAgents(
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
        await res.body?.cancel();
        if (res.ok) {
          pending.delete(agent);
          onRegistered(agent, address);
        }
      } catch {
        // not up yet, or the exchange was slow: the next round retries
      }
    }
    if (pending.size > 0) await new Promise((r) => setTimeout(r, 1000));
  }
}

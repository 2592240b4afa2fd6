import { D, wire } from "../../core/decimal.ts";
import type { Address } from "../../exchange/index.ts";
import type { AccountReading, NetworkAccounts } from "./account-source.ts";
import { netDepositsSince } from "./ledger.ts";
import type { AgentRow } from "./store.ts";
import { advanceCursor, explained, newDexes, SCAN_EVERY_MS, signatureOf, trackingOf } from "./tracking.ts";

export interface AgentValues {
  accountValue: string;
  positionsCount: number;
  netDeposits: string;
  tracking: AgentRow["tracking"];
}

function values(reading: AccountReading, netDeposits: string, tracking: AgentRow["tracking"]): AgentValues {
  return {
    accountValue: reading.accountValue,
    positionsCount: reading.positionsCount,
    netDeposits,
    tracking,
  };
}

/**
 * One agent's refresh at the least request weight that keeps its PnL right:
 * - the main dex's `clearinghouseState` (weight 2), plus one per HIP-3 dex the account holds value
 *   on, all of them (`allDexes`) every `SCAN_EVERY_MS` or when money moved to a dex not followed;
 * - the ledger (weight 20, +1 per 20 entries) only when the account moved more than its positions
 *   explain: a transfer, a trade, or margin moved elsewhere.
 * An agent with no tracking yet (a board from before it existed) is read in full once.
 */
export async function refreshAgent(
  agent: AgentRow,
  accounts: NetworkAccounts,
  allDexes: () => Promise<string[]>,
  now: number,
): Promise<AgentValues> {
  const user = agent.address as Address;
  const t = agent.tracking;
  if (!t) {
    const reading = await accounts.account(user, await allDexes());
    const ledger = await accounts.ledger(user, agent.ledgerMark?.timeMs ?? 0);
    const netDeposits = wire(netDepositsSince(ledger, agent.address, agent.ledgerMark));
    return values(
      reading,
      netDeposits,
      trackingOf(reading.perDex, advanceCursor(agent.ledgerMark, ledger), now),
    );
  }
  let scannedAt = t.scannedAt;
  const scan = now - t.scannedAt >= SCAN_EVERY_MS;
  if (scan) scannedAt = now;
  let reading = await accounts.account(user, scan ? await allDexes() : t.dexes);
  const found = newDexes(t, reading.perDex);
  if (found.length === 0 && explained(t, reading.perDex)) {
    return values(reading, agent.netDeposits, { ...t, scannedAt });
  }

  const ledger = await accounts.ledger(user, t.cursor?.timeMs ?? 0);
  const flows = netDepositsSince(ledger, agent.address, t.cursor);
  const samePositions = signatureOf(reading.perDex.filter((r) => r.dex === "" || t.dexes.includes(r.dex)));
  if (!scan && samePositions === t.signature && !explained(t, reading.perDex, flows)) {
    // Neither transfers nor trades moved this money: margin went to a HIP-3 dex not followed.
    reading = await accounts.account(user, await allDexes());
    scannedAt = now;
  }
  const netDeposits = wire(new D(agent.netDeposits).plus(flows));
  return values(reading, netDeposits, trackingOf(reading.perDex, advanceCursor(t.cursor, ledger), scannedAt));
}

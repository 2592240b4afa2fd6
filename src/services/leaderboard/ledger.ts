import { D, type Dec } from "../../core/decimal.ts";

/** One entry of the exchange's `userNonFundingLedgerUpdates`. */
export interface LedgerUpdate {
  time: number;
  hash: string;
  delta: { type: string; [k: string]: unknown };
}

/**
 * Where the ledger stood at registration, in the exchange's own clock: every entry up to `timeMs`
 * whose hash is in `hashes` is part of the baseline. (Entries sharing the last timestamp are told
 * apart by hash, so a deposit landing in the same millisecond as registration is not lost.)
 */
export interface LedgerMark {
  timeMs: number;
  hashes: string[];
}

export function markOf(updates: readonly LedgerUpdate[]): LedgerMark | null {
  if (updates.length === 0) return null;
  const timeMs = Math.max(...updates.map((u) => u.time));
  return { timeMs, hashes: updates.filter((u) => u.time === timeMs).map((u) => u.hash) };
}

function amount(v: unknown): Dec {
  if (typeof v !== "string" && typeof v !== "number") return new D(0);
  try {
    const d = new D(v);
    return d.isFinite() ? d : new D(0);
  } catch {
    return new D(0);
  }
}

const same = (a: unknown, b: string) => typeof a === "string" && a.toLowerCase() === b;

/**
 * USDC that entered (+) or left (−) the perp accounts of `address` — summed over the main dex and
 * HIP-3 dexes, which is what the leaderboard's account value measures — through one ledger entry.
 * Deposits, withdrawals, transfers between users, spot↔perp moves and vault flows count; moves
 * between the user's own perp dexes net to zero; fees and liquidations are trading results, not flows.
 */
function flowOf(u: LedgerUpdate, address: string): Dec {
  const d = u.delta;
  const usdc = amount(d.usdc);
  switch (d.type) {
    case "deposit":
    case "vaultDistribution":
      return usdc;
    case "withdraw":
    case "vaultDeposit":
    case "vaultCreate":
      return usdc.neg();
    case "vaultWithdraw":
      return amount(d.netWithdrawnUsd);
    case "accountClassTransfer":
      return d.toPerp === true ? usdc : usdc.neg();
    case "internalTransfer":
    case "subAccountTransfer": {
      const incoming = same(d.destination, address) ? usdc : new D(0);
      const outgoing = same(d.user, address) ? usdc : new D(0);
      return incoming.minus(outgoing);
    }
    case "send": {
      const value = amount(d.usdcValue);
      const incoming = same(d.destination, address) && d.destinationDex !== "spot" ? value : new D(0);
      const outgoing = same(d.user, address) && d.sourceDex !== "spot" ? value : new D(0);
      return incoming.minus(outgoing);
    }
    default:
      return new D(0);
  }
}

/** Net deposits since registration: the sum of flows of every entry after the registration mark. */
export function netDepositsSince(
  updates: readonly LedgerUpdate[],
  address: string,
  mark: LedgerMark | null,
): Dec {
  const addr = address.toLowerCase();
  const baseline = new Set(mark?.hashes ?? []);
  let total = new D(0);
  for (const u of updates) {
    if (mark && (u.time < mark.timeMs || (u.time === mark.timeMs && baseline.has(u.hash)))) continue;
    total = total.plus(flowOf(u, addr));
  }
  return total;
}

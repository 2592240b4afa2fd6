import { D, type Dec, num } from "../../core/decimal.ts";
import type { LeaderboardNetwork } from "./account-source.ts";
import type { AgentRow } from "./store.ts";

export interface BoardEntry {
  rank: number;
  address: string;
  display_name: string;
  pnl: number;
  account_value: number;
  positions_count: number;
  network: LeaderboardNetwork;
  registered_at: number;
  /** Present (and true) only when the last exchange query for this agent failed. */
  stale?: true;
  /** USDC deposited minus withdrawn/transferred out since registration. */
  net_deposits: number;
  /** PnL net of those flows: account_value − initial − net_deposits. */
  pnl_adjusted: number;
}

/** A ranked board, with each entry already serialised so a read is a memory copy. */
export interface Board {
  network: LeaderboardNetwork;
  lastUpdated: number;
  total: number;
  entries: BoardEntry[];
  entryJson: string[];
  body: Buffer;
}

/**
 * Rank agents by PnL (current account value − baseline), highest first; ties by earlier
 * registration, then address. Ranking uses the exact decimal PnL; the output rounds to cents.
 */
export function buildBoard(rows: readonly AgentRow[], network: LeaderboardNetwork, nowMs: number): Board {
  const scored = rows.map((r) => {
    const pnl = new D(r.accountValue).minus(r.initialAccountValue);
    // A float copy orders almost every pair cheaply; exact decimals decide only when it ties.
    return { r, pnl, approx: pnl.toNumber() };
  });
  scored.sort(
    (a, b) =>
      b.approx - a.approx ||
      b.pnl.comparedTo(a.pnl) ||
      a.r.registeredAt - b.r.registeredAt ||
      (a.r.address < b.r.address ? -1 : a.r.address > b.r.address ? 1 : 0),
  );
  const entries = scored.map(({ r, pnl }, i): BoardEntry => {
    const netDeposits = new D(r.netDeposits);
    const e: BoardEntry = {
      rank: i + 1,
      address: r.address.toLowerCase(),
      display_name: r.displayName,
      pnl: cents(pnl),
      account_value: num(r.accountValue),
      positions_count: r.positionsCount,
      network,
      registered_at: r.registeredAt,
      net_deposits: cents(netDeposits),
      pnl_adjusted: cents(pnl.minus(netDeposits)),
    };
    if (r.stale) e.stale = true;
    return e;
  });
  const entryJson = entries.map((e) => JSON.stringify(e));
  const board = { network, lastUpdated: nowMs, total: entries.length, entries, entryJson, body: Buffer.alloc(0) };
  board.body = Buffer.from(boardJson(board, 0, entries.length));
  return board;
}

/** Rounded to cents, half to even (as Python's round(x, 2) on the predecessor's board). */
function cents(d: Dec): number {
  return Number(d.toFixed(2));
}

/** The response body for agents [offset, offset+limit) of the board. */
export function boardJson(board: Omit<Board, "body">, offset: number, limit: number): string {
  const slice = board.entryJson.slice(offset, offset + limit).join(",");
  return `{"agents":[${slice}],"total_agents":${board.total},"last_updated":${board.lastUpdated},"network":"${board.network}"}`;
}

import { D, type Dec, num } from "../../core/decimal.ts";
import type { LeaderboardNetwork } from "./account-source.ts";
import { weakEtag } from "./encodings.ts";
import { accountPnl, cents } from "./pnl.ts";
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
  /** Validator of `body`, the same for each of its encodings. */
  etag: string;
  /** `body` gzip- and brotli-compressed, once ready (compressed off the event loop after the build). */
  gzip?: Buffer;
  brotli?: Buffer;
  /** Settles when the compressed copies are in place (or will not be made). */
  compressed: Promise<void>;
}

/** What an agent contributes to a board apart from its rank, kept while its values are unchanged. */
interface Scored {
  key: string;
  address: string;
  registeredAt: number;
  pnl: Dec;
  /** A float copy of `pnl`: orders almost every pair cheaply; the exact decimals decide only ties. */
  approx: number;
  entry: Omit<BoardEntry, "rank">;
  /** `entry` as JSON without its braces, to follow `"rank":n,`. */
  json: string;
}

function score(r: AgentRow, network: LeaderboardNetwork, key: string): Scored {
  const pnl = accountPnl(r.accountValue, r.initialAccountValue);
  const netDeposits = new D(r.netDeposits);
  const entry: Omit<BoardEntry, "rank"> = {
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
  if (r.stale) entry.stale = true;
  return {
    key,
    address: r.address,
    registeredAt: r.registeredAt,
    pnl,
    approx: pnl.toNumber(),
    entry,
    json: JSON.stringify(entry).slice(1, -1),
  };
}

/**
 * Builds ranked boards: agents by PnL (current account value − baseline), highest first; ties by
 * earlier registration, then address. Ranking uses the exact decimal PnL; the output rounds to
 * cents. Each agent's parsed values and JSON are kept until they change, so rebuilding a large
 * board is a sort and a concatenation.
 */
export class BoardBuilder {
  private readonly cache = new Map<string, Scored>();

  build(rows: readonly AgentRow[], network: LeaderboardNetwork, nowMs: number): Board {
    const scored = rows.map((r) => {
      const id = `${network}:${r.address}`;
      const key = `${r.accountValue}|${r.initialAccountValue}|${r.netDeposits}|${r.positionsCount}|${r.stale}|${r.displayName}|${r.registeredAt}`;
      const cached = this.cache.get(id);
      if (cached?.key === key) return cached;
      const fresh = score(r, network, key);
      this.cache.set(id, fresh);
      return fresh;
    });
    scored.sort(
      (a, b) =>
        b.approx - a.approx ||
        b.pnl.comparedTo(a.pnl) ||
        a.registeredAt - b.registeredAt ||
        (a.address < b.address ? -1 : a.address > b.address ? 1 : 0),
    );
    const entries = scored.map((s, i): BoardEntry => ({ rank: i + 1, ...s.entry }));
    const entryJson = scored.map((s, i) => `{"rank":${i + 1},${s.json}}`);
    const listing = { network, lastUpdated: nowMs, total: entries.length, entries, entryJson };
    const body = Buffer.from(boardJson(listing, 0, entries.length));
    return { ...listing, body, etag: weakEtag(body), compressed: Promise.resolve() };
  }
}

/** One-off board (no cache kept). */
export function buildBoard(rows: readonly AgentRow[], network: LeaderboardNetwork, nowMs: number): Board {
  return new BoardBuilder().build(rows, network, nowMs);
}

/** The response body for agents [offset, offset+limit) of the board. */
export function boardJson(
  board: Pick<Board, "network" | "lastUpdated" | "total" | "entryJson">,
  offset: number,
  limit: number,
): string {
  const slice = board.entryJson.slice(offset, offset + limit).join(",");
  return `{"agents":[${slice}],"total_agents":${board.total},"last_updated":${board.lastUpdated},"network":"${board.network}"}`;
}

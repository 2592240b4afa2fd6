import { D, type Dec, num } from "../../core/decimal.ts";
import type { LeaderboardNetwork } from "./account-source.ts";
import { weakEtag } from "./encodings.ts";
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
  /** The entries as objects (made on first use: serving needs only the bytes). */
  readonly entries: BoardEntry[];
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
  const pnl = new D(r.accountValue).minus(r.initialAccountValue);
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

/** Rounded to cents, half to even (as Python's round(x, 2) on the predecessor's board). */
function cents(d: Dec): number {
  return Number(d.toFixed(2));
}

function ranked(a: Scored, b: Scored): number {
  return (
    b.approx - a.approx ||
    b.pnl.comparedTo(a.pnl) ||
    a.registeredAt - b.registeredAt ||
    (a.address < b.address ? -1 : a.address > b.address ? 1 : 0)
  );
}

/** Where `s` goes in `sorted` (the first place not ranked before it). */
function placeOf(sorted: readonly Scored[], s: Scored): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ranked(sorted[mid]!, s) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Beyond this many changed agents at once, one sort costs less than moving each. */
const MOVE_ONE_BY_ONE = 64;

/** One network's ranking as last published. */
interface Ranking {
  byAddress: Map<string, Scored>;
  sorted: Scored[];
  entryJson: string[];
}

function keyOf(r: AgentRow): string {
  return `${r.accountValue}|${r.initialAccountValue}|${r.netDeposits}|${r.positionsCount}|${r.stale}|${r.displayName}|${r.registeredAt}`;
}

/**
 * Builds ranked boards: agents by PnL (current account value − baseline), highest first; ties by
 * earlier registration, then address. Ranking uses the exact decimal PnL; the output rounds to
 * cents. `build` ranks a whole network; `apply` moves only the agents that changed (a registration,
 * a refresh) to their new places, so following the store costs what changed, not the board's size.
 */
export class BoardBuilder {
  private readonly rankings = new Map<LeaderboardNetwork, Ranking>();

  /** The board of exactly `rows` (replacing what this builder knew of the network). */
  build(rows: readonly AgentRow[], network: LeaderboardNetwork, nowMs: number): Board {
    const byAddress = new Map<string, Scored>();
    for (const r of rows) byAddress.set(r.address, score(r, network, keyOf(r)));
    const sorted = [...byAddress.values()].sort(ranked);
    const ranking: Ranking = { byAddress, sorted, entryJson: sorted.map(entryJsonAt) };
    this.rankings.set(network, ranking);
    return publish(ranking, network, nowMs);
  }

  /**
   * The board after `rows` (new or changed agents) replaced their previous values; undefined when
   * none of them changed anything shown. Needs a `build` of the network first.
   */
  apply(rows: readonly AgentRow[], network: LeaderboardNetwork, nowMs: number): Board | undefined {
    const ranking = this.rankings.get(network);
    if (!ranking) return this.build(rows, network, nowMs);
    const moved: { before: Scored | undefined; after: Scored }[] = [];
    for (const r of rows) {
      const key = keyOf(r);
      const before = ranking.byAddress.get(r.address);
      if (before?.key === key) continue;
      const after = score(r, network, key);
      ranking.byAddress.set(r.address, after);
      moved.push({ before, after });
    }
    if (moved.length === 0) return undefined;
    // Copies: the board being served keeps its arrays.
    let sorted: Scored[];
    let entryJson: string[];
    if (moved.length > MOVE_ONE_BY_ONE) {
      sorted = [...ranking.byAddress.values()].sort(ranked);
      entryJson = sorted.map(entryJsonAt);
    } else {
      sorted = ranking.sorted.slice();
      let from = sorted.length;
      for (const { before, after } of moved) {
        if (before) {
          const at = placeOf(sorted, before);
          sorted.splice(at, 1);
          from = Math.min(from, at);
        }
        const to = placeOf(sorted, after);
        sorted.splice(to, 0, after);
        from = Math.min(from, to);
      }
      // Ranks shift only from the first place touched on; the entries above keep their JSON.
      entryJson = ranking.entryJson.slice(0, from);
      for (let i = from; i < sorted.length; i++) entryJson.push(entryJsonAt(sorted[i]!, i));
    }
    const next: Ranking = { byAddress: ranking.byAddress, sorted, entryJson };
    this.rankings.set(network, next);
    return publish(next, network, nowMs);
  }
}

function entryJsonAt(s: Scored, i: number): string {
  return `{"rank":${i + 1},${s.json}}`;
}

function publish(ranking: Ranking, network: LeaderboardNetwork, nowMs: number): Board {
  const { sorted, entryJson } = ranking;
  const listing = { network, lastUpdated: nowMs, total: sorted.length, entryJson };
  const body = Buffer.from(boardJson(listing, 0, sorted.length));
  let entries: BoardEntry[] | undefined;
  return {
    ...listing,
    get entries() {
      entries ??= sorted.map((s, i): BoardEntry => ({ rank: i + 1, ...s.entry }));
      return entries;
    },
    body,
    etag: weakEtag(body),
    compressed: Promise.resolve(),
  };
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

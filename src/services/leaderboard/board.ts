import { D, type Dec, num } from "../../core/decimal.ts";
import type { LeaderboardNetwork } from "./account-source.ts";
import { nextBoardEtag } from "./encodings.ts";
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

/** A ranked board, serialised once so a read of it is a memory copy. */
export interface Board {
  network: LeaderboardNetwork;
  lastUpdated: number;
  total: number;
  /** The entries as objects (made on first use: serving needs only the bytes). */
  readonly entries: BoardEntry[];
  /** Each entry's JSON, rank first (made on first use). */
  readonly entryJson: string[];
  /** The JSON of entries [offset, offset+limit), made for that page only. */
  page(offset: number, limit: number): string[];
  body: Buffer;
  /** Validator of `body`, the same for each of its encodings. */
  etag: string;
  /**
   * `body` compressed, off the event loop: gzip quickly once the board is made, then both smaller
   * copies once it has stood unchanged for a moment.
   */
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
  /** `,` + json + `}` as UTF-8: what follows the rank in the body. */
  tail: Buffer;
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
  const json = JSON.stringify(entry).slice(1, -1);
  return {
    key,
    address: r.address,
    registeredAt: r.registeredAt,
    pnl,
    approx: pnl.toNumber(),
    entry,
    json,
    tail: Buffer.from(`,${json}}`),
  };
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
    const ranking: Ranking = { byAddress, sorted: [...byAddress.values()].sort(ranked) };
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
    // A copy: the board being served keeps its array.
    let sorted: Scored[];
    if (moved.length > MOVE_ONE_BY_ONE) {
      sorted = [...ranking.byAddress.values()].sort(ranked);
    } else {
      sorted = ranking.sorted.slice();
      for (const { before, after } of moved) {
        if (before) sorted.splice(placeOf(sorted, before), 1);
        sorted.splice(placeOf(sorted, after), 0, after);
      }
    }
    const next: Ranking = { byAddress: ranking.byAddress, sorted };
    this.rankings.set(network, next);
    return publish(next, network, nowMs);
  }
}

function entryJsonAt(s: Scored, i: number): string {
  return `{"rank":${i + 1},${s.json}}`;
}

const RANK = Buffer.from('{"rank":');
const COMMA = Buffer.from(",");

/**
 * The board's bytes, written straight from each agent's encoded JSON: only the ranks are new, so a
 * board of 10,000 agents (2.2 MB) is a few copies, however many places moved.
 */
function bodyOf(sorted: readonly Scored[], network: LeaderboardNetwork, nowMs: number): Buffer {
  const head = Buffer.from('{"agents":[');
  const foot = Buffer.from(
    `],"total_agents":${sorted.length},"last_updated":${nowMs},"network":"${network}"}`,
  );
  let size = head.length + foot.length + Math.max(0, sorted.length - 1);
  for (let i = 0; i < sorted.length; i++) size += RANK.length + digits(i + 1) + sorted[i]!.tail.length;
  const body = Buffer.allocUnsafe(size);
  let at = head.copy(body, 0);
  for (let i = 0; i < sorted.length; i++) {
    if (i > 0) at += COMMA.copy(body, at);
    at += RANK.copy(body, at);
    at += body.write(String(i + 1), at, "latin1");
    at += sorted[i]!.tail.copy(body, at);
  }
  foot.copy(body, at);
  return body;
}

function digits(n: number): number {
  return n < 10 ? 1 : n < 100 ? 2 : n < 1000 ? 3 : n < 10_000 ? 4 : n < 100_000 ? 5 : String(n).length;
}

function publish(ranking: Ranking, network: LeaderboardNetwork, nowMs: number): Board {
  const { sorted } = ranking;
  const body = bodyOf(sorted, network, nowMs);
  const page = (offset: number, limit: number) =>
    sorted.slice(offset, offset + limit).map((s, i) => entryJsonAt(s, offset + i));
  let entries: BoardEntry[] | undefined;
  let entryJson: string[] | undefined;
  return {
    network,
    lastUpdated: nowMs,
    total: sorted.length,
    get entries() {
      entries ??= sorted.map((s, i): BoardEntry => ({ rank: i + 1, ...s.entry }));
      return entries;
    },
    get entryJson() {
      entryJson ??= page(0, sorted.length);
      return entryJson;
    },
    page,
    body,
    etag: nextBoardEtag(),
    compressed: Promise.resolve(),
  };
}

/** The response body for agents [offset, offset+limit) of the board. */
export function boardJson(
  board: Pick<Board, "network" | "lastUpdated" | "total" | "page">,
  offset: number,
  limit: number,
): string {
  const slice = board.page(offset, limit).join(",");
  return `{"agents":[${slice}],"total_agents":${board.total},"last_updated":${board.lastUpdated},"network":"${board.network}"}`;
}

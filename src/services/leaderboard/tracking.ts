import { D, type Dec } from "../../core/decimal.ts";
import type { LedgerMark, LedgerUpdate } from "./ledger.ts";

/** One open position as `clearinghouseState` reports it (decimal strings). */
interface PositionReading {
  coin: string;
  szi: string;
  entryPx: string;
  unrealizedPnl: string;
  /** `cumFunding.sinceOpen`: funding paid (+) or received (−) since the position opened. */
  fundingSinceOpen: string;
}

/** One dex's `clearinghouseState` for one account ("" is the main dex). */
export interface DexReading {
  dex: string;
  accountValue: string;
  positions: PositionReading[];
}

/**
 * What the refresher remembers about an agent between refreshes, so most refreshes cost one
 * main-dex `clearinghouseState` (weight 2) and nothing else.
 * - `dexes`: the HIP-3 dexes the account holds value on (read every refresh besides the main dex);
 * - `cursor`: how far the ledger has been read (`netDeposits` covers everything up to it);
 * - `anchor` / `signature`: the account's cash-like invariant and its positions when the ledger was
 *   last read (see `anchorOf`);
 * - `scannedAt`: when every HIP-3 dex was last read (exchange-independent wall clock, ms).
 */
export interface Tracking {
  dexes: string[];
  cursor: LedgerMark | null;
  anchor: string;
  signature: string;
  scannedAt: number;
}

/**
 * Account value minus unrealized PnL plus funding paid since open, summed over the dexes read.
 * Price moves shift value and unrealized PnL alike, and funding moves value and `sinceOpen` alike,
 * so while the positions stay as they were this only moves when money enters or leaves (or margin
 * moves to a dex not read). A trade changes the positions, which `signatureOf` sees.
 */
function anchorOf(readings: readonly DexReading[]): Dec {
  let k = new D(0);
  for (const r of readings) {
    k = k.plus(r.accountValue);
    for (const p of r.positions) k = k.minus(p.unrealizedPnl).plus(p.fundingSinceOpen);
  }
  return k;
}

/** The open positions (dex, coin, size, entry price), in a stable order. */
export function signatureOf(readings: readonly DexReading[]): string {
  const parts: string[] = [];
  for (const r of readings) {
    for (const p of r.positions) parts.push(`${r.dex}|${p.coin}|${new D(p.szi).toFixed()}|${p.entryPx}`);
  }
  return parts.sort().join(";");
}

/** Rounding of the exchange's 6-decimal figures stays far below this; a real transfer does not. */
const UNEXPLAINED_TOLERANCE = new D("0.01");

/** Every HIP-3 dex is read again at least this often, whatever the account shows (ms). */
export const SCAN_EVERY_MS = 15 * 60_000;

/** A HIP-3 dex worth reading every refresh: it holds value or positions. */
function isActive(r: DexReading): boolean {
  return r.dex === "" || !new D(r.accountValue).isZero() || r.positions.length > 0;
}

/** The HIP-3 dexes to keep reading, from a set of readings. */
function activeDexes(readings: readonly DexReading[]): string[] {
  return readings
    .filter((r) => r.dex !== "" && isActive(r))
    .map((r) => r.dex)
    .sort();
}

/** Only the readings of the dexes `tracking` follows (main dex included). */
function followed(readings: readonly DexReading[], dexes: readonly string[]): DexReading[] {
  const keep = new Set(["", ...dexes]);
  return readings.filter((r) => keep.has(r.dex));
}

/**
 * Whether the move since the ledger was last read is explained without it: the same positions, and
 * the invariant within tolerance of its anchor plus the flows given (none before the ledger is read).
 */
export function explained(
  tracking: Tracking,
  readings: readonly DexReading[],
  flows: Dec = new D(0),
): boolean {
  const mine = followed(readings, tracking.dexes);
  if (signatureOf(mine) !== tracking.signature) return false;
  const drift = anchorOf(mine).minus(tracking.anchor).minus(flows);
  return drift.abs().lte(UNEXPLAINED_TOLERANCE);
}

/** A dex that newly holds value (found by a scan), which the anchor does not cover yet. */
export function newDexes(tracking: Tracking, readings: readonly DexReading[]): string[] {
  const known = new Set(tracking.dexes);
  return activeDexes(readings).filter((d) => !known.has(d));
}

/**
 * The ledger position after reading `updates` (all entries from `cursor.timeMs` on): the latest
 * time seen, with every hash at that time (entries sharing the cursor's time keep its hashes).
 */
export function advanceCursor(
  cursor: LedgerMark | null,
  updates: readonly LedgerUpdate[],
): LedgerMark | null {
  if (updates.length === 0) return cursor;
  const timeMs = Math.max(cursor?.timeMs ?? Number.NEGATIVE_INFINITY, ...updates.map((u) => u.time));
  const hashes = new Set(cursor && cursor.timeMs === timeMs ? cursor.hashes : []);
  for (const u of updates) if (u.time === timeMs) hashes.add(u.hash);
  return { timeMs, hashes: [...hashes] };
}

/** A fresh tracking state over `readings` (all of them followed), anchored now. */
export function trackingOf(
  readings: readonly DexReading[],
  cursor: LedgerMark | null,
  scannedAt: number,
): Tracking {
  const dexes = activeDexes(readings);
  const mine = followed(readings, dexes);
  return {
    dexes,
    cursor,
    anchor: anchorOf(mine).toFixed(),
    signature: signatureOf(mine),
    scannedAt,
  };
}

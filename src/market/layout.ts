import { join } from "node:path";
import type { Dataset } from "./types.ts";

/**
 * The store's directory layout, Hive-style so DuckDB, pandas and polars read the partitions:
 *   <root>/market/<network>/<dataset>/dex=<dex or main>/coin=<NAME>/<YYYY-MM-DD>.parquet
 * One file per UTC day. A HIP-3 coin "yex:VXX" lives under dex=yex/coin=VXX; a main-dex coin
 * "ETH" under dex=main/coin=ETH. The day still being recorded also has a `<day>.journal.jsonl`.
 */

export const DAY_MS = 86_400_000;
const MAIN_DEX = "main";

interface CoinPath {
  dex: string;
  name: string;
}

/** "yex:VXX" → {dex: "yex", name: "VXX"}; "ETH" → {dex: "main", name: "ETH"}. */
export function splitCoin(coin: string): CoinPath {
  const i = coin.indexOf(":");
  if (coin.length === 0 || i === 0 || i === coin.length - 1) throw new Error(`invalid coin "${coin}"`);
  return i < 0 ? { dex: MAIN_DEX, name: coin } : { dex: coin.slice(0, i), name: coin.slice(i + 1) };
}

/** The inverse of splitCoin. */
export function joinCoin(dex: string, name: string): string {
  return dex === MAIN_DEX ? name : `${dex}:${name}`;
}

/** Partition values are percent-escaped outside [A-Za-z0-9._-] (as Hive does), so no name can leave its folder. */
function escapePartition(value: string): string {
  return value.replace(/[^A-Za-z0-9._-]/g, (ch) =>
    Array.from(Buffer.from(ch, "utf8"), (b) => `%${b.toString(16).toUpperCase().padStart(2, "0")}`).join(""),
  );
}

export function unescapePartition(value: string): string {
  return decodeURIComponent(value);
}

export function marketDir(root: string): string {
  return join(root, "market");
}

export function datasetDir(root: string, network: string, dataset: Dataset): string {
  return join(marketDir(root), escapePartition(network), dataset);
}

export function coinDir(root: string, network: string, dataset: Dataset, coin: string): string {
  const { dex, name } = splitCoin(coin);
  return join(
    datasetDir(root, network, dataset),
    `dex=${escapePartition(dex)}`,
    `coin=${escapePartition(name)}`,
  );
}

/** "2026-01-31" for any instant of that UTC day. */
export function dayOf(ms: number): string {
  return new Date(ms - (((ms % DAY_MS) + DAY_MS) % DAY_MS)).toISOString().slice(0, 10);
}

/** Start of a "YYYY-MM-DD" UTC day, ms. */
export function dayStart(day: string): number {
  const ms = Date.parse(`${day}T00:00:00.000Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || Number.isNaN(ms)) throw new Error(`invalid day "${day}"`);
  return ms;
}

export function dayFile(dir: string, day: string): string {
  return join(dir, `${day}.parquet`);
}

export function journalFile(dir: string, day: string): string {
  return join(dir, `${day}.journal.jsonl`);
}

const DAY_FILE = /^(\d{4}-\d{2}-\d{2})\.(parquet|journal\.jsonl)$/;

/** The day a store file holds, or undefined for anything else (temporary files, strays). */
export function dayOfFileName(fileName: string): { day: string; journal: boolean } | undefined {
  const m = DAY_FILE.exec(fileName);
  return m ? { day: m[1]!, journal: m[2] !== "parquet" } : undefined;
}

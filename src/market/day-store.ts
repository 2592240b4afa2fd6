import { randomBytes } from "node:crypto";
import { mkdir, open, readdir, readFile, rename, rm } from "node:fs/promises";
import { UserError } from "../core/errors.ts";
import { canonicalDecimal, decimalToDouble } from "./decimal-double.ts";
import { coinDir, DAY_MS, dayFile, dayOf, dayOfFileName, dayStart, journalFile } from "./layout.ts";
import {
  type ColumnSpec,
  type ColumnValues,
  decodeParquet,
  decodeParquetNumbers,
  encodeParquet,
} from "./parquet-codec.ts";
import type { Dataset, MarketQuery, MarketTarget } from "./types.ts";

/** How one dataset maps its rows to Parquet columns and which rows are the same record. */
export interface DatasetSpec<R extends { t: number }> {
  dataset: Dataset;
  columns: readonly ColumnSpec[];
  /** Rows with equal keys are one record: a later write replaces the earlier. */
  key(row: R): string | number;
  /** Row i of decoded columns. */
  rowAt(values: ColumnValues, i: number): R;
}

/** Files read in parallel while reading a range. */
const READ_CONCURRENCY = 8;

/** The rows of one coin with fromMs <= t < toMs: day files and their journals, sorted by t, one per key. */
export async function readRange<R extends { t: number }>(spec: DatasetSpec<R>, q: MarketQuery): Promise<R[]> {
  const dir = coinDir(q.root, q.network, spec.dataset, q.coin);
  if (!(q.toMs > q.fromMs)) return [];
  const days = await daysIn(dir, q.fromMs, q.toMs);
  const perDay: R[][] = new Array(days.length);
  let next = 0;
  const worker = async () => {
    while (next < days.length) {
      const i = next++;
      perDay[i] = await readDay(spec, dir, days[i]!, q.fromMs, q.toMs);
    }
  };
  await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, days.length) }, worker));
  if (perDay.length === 1) return perDay[0]!;
  let total = 0;
  for (const rows of perDay) total += rows.length;
  const out: R[] = new Array(total);
  let k = 0;
  for (const rows of perDay) for (let i = 0; i < rows.length; i++) out[k++] = rows[i]!;
  return out;
}

/**
 * The rows readRange returns, as number columns (`names`: timestamp, decimal or int columns of the
 * spec): decimals are the stored doubles, never formatted into strings. A day with a journal is
 * read as rows and merged first; a day without one goes straight from Parquet to the columns.
 */
export async function readRangeNumbers<R extends { t: number }>(
  spec: DatasetSpec<R>,
  q: MarketQuery,
  names: readonly string[],
): Promise<Record<string, Float64Array>> {
  const columns = names.map((name) => {
    const column = spec.columns.find((c) => c.name === name);
    if (!column) throw new Error(`${spec.dataset} has no column ${name}`);
    return column;
  });
  const withTime = columns.some((c) => c.name === "t") ? columns : [...columns, spec.columns[0]!];
  const dir = coinDir(q.root, q.network, spec.dataset, q.coin);
  const days = q.toMs > q.fromMs ? await daysIn(dir, q.fromMs, q.toMs) : [];
  const perDay: Record<string, Float64Array>[] = new Array(days.length);
  let next = 0;
  const worker = async () => {
    while (next < days.length) {
      const i = next++;
      perDay[i] = await readDayNumbers(spec, dir, days[i]!, q.fromMs, q.toMs, withTime);
    }
  };
  await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, days.length) }, worker));
  const out: Record<string, Float64Array> = {};
  for (const { name } of columns) {
    let total = 0;
    for (const day of perDay) total += day[name]!.length;
    const column = new Float64Array(total);
    let k = 0;
    for (const day of perDay) {
      column.set(day[name]!, k);
      k += day[name]!.length;
    }
    out[name] = column;
  }
  return out;
}

async function readDayNumbers<R extends { t: number }>(
  spec: DatasetSpec<R>,
  dir: string,
  day: string,
  fromMs: number,
  toMs: number,
  columns: readonly ColumnSpec[],
): Promise<Record<string, Float64Array>> {
  const journal = await readJournalDay(spec, dir, day);
  let values: Record<string, Float64Array>;
  if (journal.length > 0) {
    const rows = await readDay(spec, dir, day, fromMs, toMs);
    values = {};
    for (const { name } of columns) {
      const column = new Float64Array(rows.length);
      for (let i = 0; i < rows.length; i++) {
        const v = (rows[i] as Record<string, unknown>)[name];
        column[i] = v === null || v === undefined ? Number.NaN : Number(v);
      }
      values[name] = column;
    }
    return values;
  }
  const file = dayFile(dir, day);
  const bytes = await readIfExists(file);
  if (!bytes) return Object.fromEntries(columns.map((c) => [c.name, new Float64Array(0)]));
  values = (await naming(file, decodeParquetNumbers(bytes, columns))).values;
  // A day file is sorted by t: the range is one run of it.
  const t = values.t!;
  let a = 0;
  while (a < t.length && t[a]! < fromMs) a++;
  let b = t.length;
  while (b > a && t[b - 1]! >= toMs) b--;
  if (a === 0 && b === t.length) return values;
  const cut: Record<string, Float64Array> = {};
  for (const [name, column] of Object.entries(values)) cut[name] = column.subarray(a, b);
  return cut;
}

/** Merges rows into their day files (a row replaces a stored one with the same key); each file is replaced atomically. */
export async function writeRows<R extends { t: number }>(
  spec: DatasetSpec<R>,
  target: MarketTarget,
  rows: readonly R[],
): Promise<void> {
  const dir = coinDir(target.root, target.network, spec.dataset, target.coin);
  const byDay = new Map<string, R[]>();
  for (const row of rows) {
    if (!Number.isSafeInteger(row.t))
      throw new Error(`${spec.dataset}: row time ${row.t} is not an integer ms`);
    const day = dayOf(row.t);
    const list = byDay.get(day);
    if (list) list.push(row);
    else byDay.set(day, [row]);
  }
  if (byDay.size === 0) return;
  await mkdir(dir, { recursive: true });
  for (const [day, dayRows] of byDay) {
    const stored = await readParquetDay(spec, dir, day);
    const merged = mergeRows(spec, stored, dayRows);
    await writeFileAtomic(dayFile(dir, day), encodeParquet(spec.columns, toColumns(spec, merged)));
  }
}

/** Rows of a day's Parquet file only (no journal), or [] when there is none. */
export async function readParquetDay<R extends { t: number }>(
  spec: DatasetSpec<R>,
  dir: string,
  day: string,
): Promise<R[]> {
  const file = dayFile(dir, day);
  const bytes = await readIfExists(file);
  if (!bytes) return [];
  const { rows, values } = await naming(file, decodeParquet(bytes, spec.columns));
  const out: R[] = new Array(rows);
  for (let i = 0; i < rows; i++) out[i] = spec.rowAt(values, i);
  return out;
}

/** Rows of a day's journal; a torn last line (the writer was killed mid-write) is skipped. */
export async function readJournalDay<R extends { t: number }>(
  spec: DatasetSpec<R>,
  dir: string,
  day: string,
): Promise<R[]> {
  const bytes = await readIfExists(journalFile(dir, day));
  if (!bytes) return [];
  const out: R[] = [];
  for (const line of bytes.toString("utf8").split("\n")) {
    if (!line) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      continue;
    }
    if (parsed && typeof parsed === "object" && typeof (parsed as { t?: unknown }).t === "number")
      out.push(normalizeRow(spec, parsed as R));
  }
  return out;
}

/** One journal line for a row, after checking it will compact into Parquet (decimals it can hold). */
export function journalLine<R extends { t: number }>(spec: DatasetSpec<R>, row: R): string {
  return `${JSON.stringify(normalizeRow(spec, row))}\n`;
}

/** Sorted by t (stable), one row per key, later rows replacing earlier ones. */
export function mergeRows<R extends { t: number }>(
  spec: DatasetSpec<R>,
  earlier: readonly R[],
  later: readonly R[],
): R[] {
  const byKey = new Map<string | number, R>();
  for (const row of earlier) byKey.set(spec.key(row), row);
  for (const row of later) byKey.set(spec.key(row), row);
  return [...byKey.values()].sort((a, b) => a.t - b.t);
}

export function toColumns<R extends { t: number }>(spec: DatasetSpec<R>, rows: readonly R[]): ColumnValues {
  const values: Record<string, unknown[]> = {};
  for (const col of spec.columns) {
    const name = col.name as keyof R;
    values[col.name] = rows.map((r) => r[name] ?? null);
  }
  return values;
}

/** Writes bytes to a temporary file beside `path`, flushes it, then renames it over `path`. */
export async function writeFileAtomic(path: string, bytes: Uint8Array): Promise<void> {
  const tmp = `${path}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`;
  const handle = await open(tmp, "w");
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } catch (err) {
    await handle.close();
    await rm(tmp, { force: true });
    throw err;
  }
  await handle.close();
  await rename(tmp, path);
}

async function readDay<R extends { t: number }>(
  spec: DatasetSpec<R>,
  dir: string,
  day: string,
  fromMs: number,
  toMs: number,
): Promise<R[]> {
  const [stored, journal] = await Promise.all([
    readParquetDay(spec, dir, day),
    readJournalDay(spec, dir, day),
  ]);
  const rows = journal.length ? mergeRows(spec, stored, journal) : stored;
  if (rows.length === 0 || (rows[0]!.t >= fromMs && rows[rows.length - 1]!.t < toMs)) return rows;
  return rows.filter((r) => r.t >= fromMs && r.t < toMs);
}

/** Decimal fields in the canonical form the Parquet file gives back, refusing ones it cannot hold. */
function normalizeRow<R extends { t: number }>(spec: DatasetSpec<R>, row: R): R {
  const record: Record<string, unknown> = { ...row };
  for (const col of spec.columns) {
    if (col.kind !== "decimal") continue;
    const v = record[col.name];
    if (v === null || v === undefined) {
      if (!col.nullable) throw new Error(`${spec.dataset}: ${col.name} is missing`);
      record[col.name] = null;
      continue;
    }
    decimalToDouble(v as string);
    record[col.name] = canonicalDecimal(v as string);
  }
  return record as R;
}

/** Days held in `dir` that overlap [fromMs, toMs), oldest first. */
async function daysIn(dir: string, fromMs: number, toMs: number): Promise<string[]> {
  // Only the days held are opened, so an open-ended range (fromMs 0) costs one directory listing.
  return (await heldDays(dir)).filter((d) => {
    const start = dayStart(d);
    return start < toMs && start + DAY_MS > fromMs;
  });
}

/** Days with a Parquet file or a journal in `dir`, oldest first. */
async function heldDays(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw err;
  }
  const days = new Set<string>();
  for (const name of names) {
    const f = dayOfFileName(name);
    if (f) days.add(f.day);
  }
  return [...days].sort();
}

/** A day file that cannot be decoded is named in the error (the user can fetch or remove that one file). */
async function naming<T>(file: string, decoding: Promise<T>): Promise<T> {
  try {
    return await decoding;
  } catch (err) {
    throw new UserError(`${file}: not a readable Parquet day file (${(err as Error).message})`);
  }
}

async function readIfExists(path: string): Promise<Buffer | undefined> {
  try {
    return await readFile(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
}

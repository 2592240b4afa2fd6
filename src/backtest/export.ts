import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { encodeParquet } from "../market/parquet-codec.ts";
import { writeFileAtomic } from "../store/atomic.ts";
import type { LedgerFill } from "./ledger.ts";
import type { ReplayTape } from "./replay-venue.ts";

/** What `--export <dir>` writes: the fills and the equity curve, each as CSV and as Parquet. */
export const EXPORT_FILES = ["fills.csv", "fills.parquet", "equity.csv", "equity.parquet"] as const;

const FILL_COLUMNS = [
  { name: "time", kind: "timestamp" },
  { name: "side", kind: "string" },
  { name: "price", kind: "decimal" },
  { name: "size", kind: "decimal" },
  { name: "fee", kind: "decimal" },
  { name: "liquidity", kind: "string" },
  { name: "id", kind: "string" },
] as const;

const EQUITY_COLUMNS = [
  { name: "time", kind: "timestamp" },
  { name: "close", kind: "decimal" },
  { name: "equity", kind: "decimal" },
  { name: "position", kind: "decimal" },
] as const;

/** The CSV header of a table with these columns (the same names as its Parquet file's). */
const csvHeader = (columns: readonly { name: string }[]) => columns.map((c) => c.name).join(",");

/** The fills as CSV: time (ISO), side, price, size, fee, liquidity, id. Money exactly as booked. */
function fillsCsv(fills: readonly LedgerFill[]): string {
  const lines = [csvHeader(FILL_COLUMNS)];
  for (const f of fills)
    lines.push(
      `${new Date(f.time_ms).toISOString()},${f.side},${f.price},${f.size},${f.fee},${f.liquidity},${f.id}`,
    );
  return `${lines.join("\n")}\n`;
}

/** Equity at each candle's close (the candle's open time, ISO): close, equity (USD, to the cent), position. */
function equityCsv(tape: ReplayTape, capitalUsd: number): string {
  const lines = [csvHeader(EQUITY_COLUMNS)];
  for (let i = 0; i < tape.t.length; i++)
    lines.push(
      `${new Date(tape.t[i]!).toISOString()},${tape.close[i]},${(capitalUsd + tape.pnl[i]!).toFixed(2)},${tape.qty[i]}`,
    );
  return `${lines.join("\n")}\n`;
}

export function writeExports(
  dir: string,
  fills: readonly LedgerFill[],
  tape: ReplayTape,
  capitalUsd: number,
): string[] {
  mkdirSync(dir, { recursive: true });
  const paths = EXPORT_FILES.map((f) => join(dir, f));
  writeFileAtomic(paths[0]!, fillsCsv(fills));
  writeFileAtomic(
    paths[1]!,
    encodeParquet(FILL_COLUMNS, {
      time: fills.map((f) => f.time_ms),
      side: fills.map((f) => f.side),
      price: fills.map((f) => f.price),
      size: fills.map((f) => f.size),
      fee: fills.map((f) => f.fee),
      liquidity: fills.map((f) => f.liquidity),
      id: fills.map((f) => f.id),
    }),
  );
  writeFileAtomic(paths[2]!, equityCsv(tape, capitalUsd));
  writeFileAtomic(
    paths[3]!,
    encodeParquet(EQUITY_COLUMNS, {
      time: tape.t,
      close: tape.close.map(String),
      equity: tape.pnl.map((p) => (capitalUsd + p).toFixed(2)),
      position: tape.qty.map(String),
    }),
  );
  return paths;
}

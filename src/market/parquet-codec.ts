import { type ColumnData, parquetMetadata, parquetRead } from "hyparquet";
import { type ColumnSource, parquetWriteBuffer } from "hyparquet-writer";
import { decimalToDouble, doubleToDecimal } from "./decimal-double.ts";

/**
 * Column kinds of the store and their Parquet types:
 *   timestamp → INT64 TIMESTAMP(MILLIS, UTC)   (ms numbers in JS)
 *   decimal   → DOUBLE                         (decimal strings in JS, exact — see decimal-double.ts)
 *   int       → INT32
 *   string    → BYTE_ARRAY UTF8
 *   json      → BYTE_ARRAY JSON                (any JSON value; strings inside are kept exactly)
 */
type ColumnKind = "timestamp" | "decimal" | "int" | "string" | "json";

export interface ColumnSpec {
  name: string;
  kind: ColumnKind;
  /** Values may be null (default: never). */
  nullable?: boolean;
}

/** Column-oriented values in their JS form (see ColumnKind), one array per column. */
export type ColumnValues = Record<string, readonly unknown[]>;

const PARQUET_TYPE = {
  timestamp: "TIMESTAMP",
  decimal: "DOUBLE",
  int: "INT32",
  string: "STRING",
  json: "JSON",
} as const;

/** Rows per row group: a day of 1m candles is one group; a busy day of trades a few. */
const ROW_GROUP_SIZE = 250_000;

export function encodeParquet(specs: readonly ColumnSpec[], values: ColumnValues): Uint8Array {
  const columnData: ColumnSource[] = specs.map((spec) => {
    const column = values[spec.name];
    if (!column) throw new Error(`column ${spec.name} is missing`);
    const data =
      spec.kind === "decimal"
        ? column.map((v) => (v === null && spec.nullable ? null : decimalToDouble(v as string)))
        : column.slice();
    if (!spec.nullable && data.some((v) => v === null || v === undefined))
      throw new Error(`column ${spec.name} has a missing value`);
    return { name: spec.name, data, type: PARQUET_TYPE[spec.kind], nullable: spec.nullable === true };
  });
  const buffer = parquetWriteBuffer({
    columnData,
    rowGroupSize: ROW_GROUP_SIZE,
    createdBy: "hl-agent market store",
  });
  return new Uint8Array(buffer);
}

/** Decodes a file written by encodeParquet into the JS forms of `specs` (other columns are skipped). */
export async function decodeParquet(
  bytes: Uint8Array,
  specs: readonly ColumnSpec[],
): Promise<{ rows: number; values: ColumnValues }> {
  const { rows, chunks } = await readChunks(bytes, specs);
  const values: Record<string, unknown[]> = {};
  const texts = new Map<number, string>(); // prices repeat across rows and columns: format each once
  for (const spec of specs) {
    const column = joinChunks(chunks.get(spec.name)!, rows);
    if (spec.kind === "decimal") decimalsFromDoubles(column, texts);
    values[spec.name] = column;
  }
  return { rows, values };
}

/**
 * Decodes numeric columns (timestamp, decimal, int) as the numbers stored: decimals stay doubles
 * (each one's shortest decimal is the exact value written, see decimal-double.ts) and nulls become NaN.
 */
export async function decodeParquetNumbers(
  bytes: Uint8Array,
  specs: readonly ColumnSpec[],
): Promise<{ rows: number; values: Record<string, Float64Array> }> {
  const { rows, chunks } = await readChunks(bytes, specs);
  const values: Record<string, Float64Array> = {};
  for (const spec of specs) {
    if (spec.kind === "string" || spec.kind === "json")
      throw new Error(`column ${spec.name} is not numeric (${spec.kind})`);
    const out = new Float64Array(rows);
    for (const chunk of chunks.get(spec.name)!) {
      const data = chunk.columnData as ArrayLike<number | null>;
      if (data instanceof Float64Array) out.set(data, chunk.rowStart);
      else for (let i = 0; i < data.length; i++) out[chunk.rowStart + i] = data[i] ?? Number.NaN;
    }
    values[spec.name] = out;
  }
  return { rows, values };
}

async function readChunks(
  bytes: Uint8Array,
  specs: readonly ColumnSpec[],
): Promise<{ rows: number; chunks: Map<string, ColumnData[]> }> {
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  const metadata = parquetMetadata(file);
  const rows = Number(metadata.num_rows);
  const chunks = new Map<string, ColumnData[]>(specs.map((s) => [s.name, []]));
  await parquetRead({
    file,
    metadata,
    columns: specs.map((s) => s.name),
    parsers: { timestampFromMilliseconds: (ms: bigint) => Number(ms) },
    onChunk(chunk: ColumnData) {
      chunks.get(chunk.columnName)?.push(chunk);
    },
  });
  return { rows, chunks };
}

/** One array of a column's chunks (usually a single chunk, used as is). */
function joinChunks(chunks: readonly ColumnData[], rows: number): unknown[] {
  const first = chunks[0];
  if (
    chunks.length === 1 &&
    first!.rowStart === 0 &&
    first!.columnData.length === rows &&
    Array.isArray(first!.columnData)
  )
    return first!.columnData as unknown[];
  const out = new Array<unknown>(rows);
  for (const chunk of chunks) {
    const data = chunk.columnData;
    for (let i = 0; i < data.length; i++) out[chunk.rowStart + i] = data[i];
  }
  return out;
}

/** Replaces doubles by their decimal strings in place. */
function decimalsFromDoubles(column: unknown[], texts: Map<number, string>): void {
  for (let i = 0; i < column.length; i++) {
    const v = column[i];
    if (v === null || v === undefined) {
      column[i] = null;
      continue;
    }
    let text = texts.get(v as number);
    if (text === undefined) {
      text = doubleToDecimal(v as number);
      texts.set(v as number, text);
    }
    column[i] = text;
  }
}

import lz4 from "lz4js";

/**
 * Hyperliquid's per-builder daily fill file (`…/builder_fills/{builder}/{YYYYMMDD}.csv.lz4`): a CSV
 * with the official columns, LZ4-frame compressed. The sim world writes it and the points service
 * reads it with these same two functions, so both ends agree with the real file byte for byte in
 * format.
 */
export const BUILDER_FILLS_HEADER =
  "time,user,coin,side,px,sz,crossed,special_trade_type,tif,is_trigger,counterparty,closed_pnl,twap_id,builder_fee";

export interface BuilderFillRow {
  /** ISO time with one-second resolution, e.g. 2026-09-18T00:00:08Z. */
  time: string;
  user: string;
  coin: string;
  side: "Bid" | "Ask";
  px: string;
  sz: string;
  /** True when the user's order took liquidity. */
  crossed: boolean;
  /** "Na" for an ordinary trade. */
  special_trade_type: string;
  tif: string;
  is_trigger: boolean;
  counterparty: string;
  closed_pnl: string;
  /** "0" when the fill is not part of a TWAP. */
  twap_id: string;
  builder_fee: string;
}

const COLUMNS = BUILDER_FILLS_HEADER.split(",") as (keyof BuilderFillRow)[];

/** The file's time column from epoch milliseconds (seconds resolution, UTC). */
export function builderFillTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

export function encodeBuilderFillsCsv(rows: readonly BuilderFillRow[]): string {
  const lines = [BUILDER_FILLS_HEADER];
  for (const row of rows) lines.push(COLUMNS.map((c) => String(row[c])).join(","));
  return `${lines.join("\n")}\n`;
}

export function parseBuilderFillsCsv(text: string): BuilderFillRow[] {
  const lines = text.split(/\r?\n/).filter((l) => l.length > 0);
  const header = lines.shift();
  if (header !== BUILDER_FILLS_HEADER)
    throw new Error(`unexpected builder fills header: ${header ?? "(empty)"}`);
  return lines.map((line, i) => {
    const cells = line.split(",");
    if (cells.length !== COLUMNS.length) {
      throw new Error(`builder fills line ${i + 2} has ${cells.length} columns, expected ${COLUMNS.length}`);
    }
    const get = (c: keyof BuilderFillRow) => cells[COLUMNS.indexOf(c)]!;
    const side = get("side");
    if (side !== "Bid" && side !== "Ask") throw new Error(`builder fills line ${i + 2}: bad side ${side}`);
    return {
      time: get("time"),
      user: get("user"),
      coin: get("coin"),
      side,
      px: get("px"),
      sz: get("sz"),
      crossed: get("crossed") === "true",
      special_trade_type: get("special_trade_type"),
      tif: get("tif"),
      is_trigger: get("is_trigger") === "true",
      counterparty: get("counterparty"),
      closed_pnl: get("closed_pnl"),
      twap_id: get("twap_id"),
      builder_fee: get("builder_fee"),
    };
  });
}

export function encodeBuilderFillsFile(rows: readonly BuilderFillRow[]): Uint8Array {
  return lz4.compress(new TextEncoder().encode(encodeBuilderFillsCsv(rows)));
}

export function decodeBuilderFillsFile(bytes: Uint8Array): BuilderFillRow[] {
  return parseBuilderFillsCsv(new TextDecoder().decode(lz4.decompress(bytes)));
}

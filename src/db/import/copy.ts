import type { Db } from "../../store/sqlite.ts";
import type { Pool } from "../pool.ts";
import { inTransaction } from "../pool.ts";
import type { ColumnKind, ImportColumn, TableImport } from "./plan.ts";

/** Rows read from SQLite and written to Postgres per statement. */
const BATCH = 2_000;

/** What one table's copy found and did. */
export interface TableReport {
  service: TableImport["service"];
  from: string;
  to: string;
  /** Rows in the SQLite table. */
  sqliteRows: number;
  /** Of those, rows whose key is in Postgres after the copy (must equal `sqliteRows`). */
  present: number;
  /** Rows this run inserted (the others were already there). */
  added: number;
  /** Rows in the Postgres table after the copy (more when Postgres has rows SQLite never had). */
  postgresRows: number;
  /** Why the copy is not complete, if it is not. */
  problem: string | null;
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** Postgres array element type of a column in `unnest(...)`: JSON travels as text and is cast after. */
const arrayType = (kind: ColumnKind) => (kind === "jsonb" ? "text" : kind);

function convert(kind: ColumnKind, v: unknown): unknown {
  if (v === null || v === undefined) return null;
  switch (kind) {
    case "boolean":
      return v !== 0 && v !== "0";
    case "numeric":
    case "text":
    case "jsonb":
      return typeof v === "string" ? v : String(v);
    default:
      return v;
  }
}

function unnest(columns: readonly ImportColumn[], first: number): string {
  const arrays = columns.map((c, i) => `$${first + i}::${arrayType(c.kind)}[]`).join(", ");
  const names = columns.map((_, i) => `c${i}`).join(", ");
  return `unnest(${arrays}) AS u(${names})`;
}

function sourceHasTable(db: Db, name: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
}

/**
 * Copy one SQLite table into its Postgres table in one transaction: rows whose key is already there
 * are kept as they are (a re-run adds nothing), and every source row's key is checked to be present.
 * `db` should be inside a read transaction, so the count and the rows are one snapshot.
 */
export async function copyTable(db: Db, pool: Pool, t: TableImport): Promise<TableReport> {
  const report: TableReport = {
    service: t.service,
    from: t.from,
    to: t.to,
    sqliteRows: 0,
    present: 0,
    added: 0,
    postgresRows: 0,
    problem: null,
  };
  if (!sourceHasTable(db, t.from)) return report;
  // A column this version does not know how to carry would be lost: refuse rather than drop it.
  const planned = new Set([...t.columns.map((c) => c.from), ...(t.local ?? [])]);
  const unknown = (db.prepare(`PRAGMA table_info(${quote(t.from)})`).all() as { name: string }[])
    .map((c) => c.name)
    .filter((name) => !planned.has(name));
  report.sqliteRows = (db.prepare(`SELECT COUNT(*) AS n FROM ${quote(t.from)}`).get() as { n: number }).n;
  const exists = await pool.query<{ r: string | null }>("SELECT to_regclass($1)::text AS r", [t.to]);
  if (unknown.length > 0) {
    report.problem = `SQLite column${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")} not imported`;
    return report;
  }
  if (exists.rows[0]?.r == null) {
    if (report.sqliteRows > 0) report.problem = `Postgres has no table ${t.to}`;
    return report;
  }

  const read = db.prepare(
    `SELECT rowid AS _rowid, ${t.columns.map((c) => quote(c.from)).join(", ")} FROM ${quote(t.from)}
     WHERE rowid > ? ORDER BY rowid LIMIT ${BATCH}`,
  );
  const targets = t.columns.map((c) => quote(c.to)).join(", ");
  const selected = t.columns.map((c, i) => (c.kind === "jsonb" ? `u.c${i}::jsonb` : `u.c${i}`)).join(", ");
  const insert = `INSERT INTO ${quote(t.to)} (${targets}) SELECT ${selected} FROM ${unnest(t.columns, 1)}
    ON CONFLICT (${t.key.map(quote).join(", ")}) DO NOTHING`;
  const keyColumns = t.key.map((k) => {
    const c = t.columns.find((x) => x.to === k);
    if (!c) throw new Error(`import plan of ${t.to}: key ${k} is not a column`);
    return c;
  });
  const match = keyColumns.map((c, i) => `t.${quote(c.to)} = u.c${i}`).join(" AND ");
  const verify = `SELECT COUNT(*)::int AS n FROM ${quote(t.to)} t JOIN ${unnest(keyColumns, 1)} ON ${match}`;

  await inTransaction(pool, async (client) => {
    let after = -1;
    for (;;) {
      const rows = read.all(after) as Record<string, unknown>[];
      if (rows.length === 0) break;
      after = rows[rows.length - 1]!._rowid as number;
      const values = t.columns.map((c) => rows.map((r) => convert(c.kind, r[c.from])));
      report.added += (await client.query(insert, values)).rowCount ?? 0;
      const keys = keyColumns.map((c) => rows.map((r) => convert(c.kind, r[c.from])));
      report.present += (await client.query<{ n: number }>(verify, keys)).rows[0]?.n ?? 0;
    }
  });
  report.postgresRows =
    (await pool.query<{ n: number }>(`SELECT COUNT(*)::int AS n FROM ${quote(t.to)}`)).rows[0]?.n ?? 0;
  if (report.present !== report.sqliteRows) {
    report.problem = `${report.sqliteRows} rows in SQLite but ${report.present} of them in Postgres`;
  }
  return report;
}

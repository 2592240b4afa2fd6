/** How a SQLite value becomes a Postgres one. */
export type ColumnKind = "text" | "bigint" | "integer" | "numeric" | "boolean" | "jsonb";

export interface ImportColumn {
  /** Column in the SQLite table. */
  from: string;
  /** Column in the Postgres table. */
  to: string;
  kind: ColumnKind;
}

/** One SQLite table copied into one Postgres table. */
export interface TableImport {
  service: "leaderboard" | "points" | "isfr" | "feeds";
  from: string;
  to: string;
  columns: readonly ImportColumn[];
  /** The Postgres primary key (`to` names): a row already there is kept, so a re-run adds nothing. */
  key: readonly string[];
  /** SQLite columns that only keep the file's own bookkeeping (Postgres keeps its own): not carried. */
  local?: readonly string[];
}

const col = (from: string, kind: ColumnKind, to = from): ImportColumn => ({ from, to, kind });

/** Every table of a SQLite deployment's public services and where it goes in Postgres. */
export const IMPORT_PLAN: readonly TableImport[] = [
  {
    service: "leaderboard",
    from: "agents",
    to: "leaderboard_agents",
    columns: [
      col("network", "text"),
      col("address", "text"),
      col("display_name", "text"),
      col("initial_account_value", "numeric"),
      col("registered_at", "bigint"),
      col("ledger_mark", "jsonb"),
      col("account_value", "numeric"),
      col("positions_count", "integer"),
      col("net_deposits", "numeric"),
      col("refreshed_at", "bigint"),
      col("stale", "boolean"),
      col("last_error", "text"),
      col("tracking", "jsonb"),
    ],
    key: ["network", "address"],
    // The file's change counter; Postgres marks changes by transaction (changed_xid) by itself.
    local: ["changed_seq"],
  },
  {
    service: "points",
    from: "marks",
    to: "points_marks",
    columns: [col("ts", "bigint"), col("px", "numeric")],
    key: ["ts"],
  },
  {
    service: "points",
    from: "wallet_fills",
    to: "points_wallet_fills",
    columns: [
      col("user", "text", "wallet"),
      col("tid", "bigint"),
      col("time", "bigint"),
      col("side", "text"),
      col("px", "numeric"),
      col("sz", "numeric"),
      col("crossed", "boolean"),
      col("builder_fee", "numeric"),
    ],
    key: ["wallet", "tid"],
  },
  {
    service: "points",
    from: "wallet_sync",
    to: "points_wallet_sync",
    columns: [col("user", "text", "wallet"), col("through_ms", "bigint"), col("missing_before_ms", "bigint")],
    key: ["wallet"],
  },
  {
    service: "isfr",
    from: "snapshots",
    to: "isfr_snapshots",
    columns: [col("ts_ms", "bigint"), col("published", "boolean"), col("rate", "text"), col("body", "text")],
    key: ["ts_ms"],
  },
  {
    service: "isfr",
    from: "source_state",
    to: "isfr_source_state",
    columns: [
      col("source_id", "text"),
      col("rate", "text"),
      col("observed_at_ms", "bigint"),
      col("last_attempt_ms", "bigint"),
      col("last_error", "text"),
    ],
    key: ["source_id"],
  },
  {
    service: "feeds",
    from: "feed_meta",
    to: "feed_meta",
    columns: [col("feed", "text"), col("inception_ms", "bigint")],
    key: ["feed"],
  },
  {
    service: "feeds",
    from: "feed_state",
    to: "feed_state",
    columns: [
      col("feed", "text"),
      col("cumulative", "text"),
      col("k", "text"),
      col("settled_through_ms", "bigint"),
    ],
    key: ["feed"],
  },
  {
    service: "feeds",
    from: "feed_hours",
    to: "feed_hours",
    columns: [col("feed", "text"), col("hour_end_ms", "bigint"), col("rate", "text")],
    key: ["feed", "hour_end_ms"],
  },
  {
    service: "feeds",
    from: "feed_ticks",
    to: "feed_ticks",
    columns: [col("feed", "text"), col("ts", "bigint"), col("tick", "text")],
    key: ["feed", "ts"],
  },
];

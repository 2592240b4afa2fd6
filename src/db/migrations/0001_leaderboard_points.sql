-- The leaderboard's registered agents and the points service's marks and fill history.
-- Money and prices are NUMERIC (exact decimals, read back as strings); times are ms since the epoch.

CREATE TABLE leaderboard_agents (
  network TEXT NOT NULL,
  address TEXT NOT NULL,
  display_name TEXT NOT NULL DEFAULT '',
  initial_account_value NUMERIC NOT NULL,
  registered_at BIGINT NOT NULL,
  ledger_mark JSONB,
  account_value NUMERIC NOT NULL,
  positions_count INTEGER NOT NULL DEFAULT 0,
  net_deposits NUMERIC NOT NULL DEFAULT 0,
  refreshed_at BIGINT,
  stale BOOLEAN NOT NULL DEFAULT FALSE,
  last_error TEXT,
  PRIMARY KEY (network, address)
);

CREATE TABLE points_marks (
  ts BIGINT PRIMARY KEY,
  px NUMERIC NOT NULL
);

CREATE TABLE points_wallet_fills (
  wallet TEXT NOT NULL,
  tid BIGINT NOT NULL,
  time BIGINT NOT NULL,
  side TEXT NOT NULL,
  px NUMERIC NOT NULL,
  sz NUMERIC NOT NULL,
  crossed BOOLEAN NOT NULL,
  builder_fee NUMERIC,
  PRIMARY KEY (wallet, tid)
);

CREATE INDEX points_wallet_fills_by_time ON points_wallet_fills (wallet, time);

CREATE TABLE points_wallet_sync (
  wallet TEXT PRIMARY KEY,
  through_ms BIGINT NOT NULL,
  missing_before_ms BIGINT
);

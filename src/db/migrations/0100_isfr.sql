-- ISFR: every snapshot (published or not) and the last reading of each source.
CREATE TABLE isfr_snapshots (
  ts_ms BIGINT PRIMARY KEY,
  published BOOLEAN NOT NULL,
  rate TEXT,
  body TEXT NOT NULL
);
CREATE INDEX isfr_snapshots_published ON isfr_snapshots (ts_ms) WHERE published;

CREATE TABLE isfr_source_state (
  source_id TEXT PRIMARY KEY,
  rate TEXT,
  observed_at_ms BIGINT,
  last_attempt_ms BIGINT NOT NULL,
  last_error TEXT
);

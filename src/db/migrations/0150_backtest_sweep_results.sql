-- Results of backtest sweeps shared through the Postgres job queue (hl backtest --sweep … --queue).
-- One row per grid point of a sweep: the first result recorded wins, so a job run twice (its worker
-- killed or too slow, the job retried elsewhere) is counted once. `outcome` is the JSON text exactly as
-- the worker wrote it (TEXT, not JSONB: key order and number spelling survive, so the submitter prints
-- byte for byte what a local sweep prints). `seq` lets the submitter read only what is new.
CREATE TABLE backtest_sweep_results (
  sweep_id TEXT NOT NULL,
  point INTEGER NOT NULL,
  seq BIGSERIAL NOT NULL,
  outcome TEXT NOT NULL,
  worker TEXT NOT NULL,
  recorded_at_ms BIGINT NOT NULL,
  PRIMARY KEY (sweep_id, point)
);
CREATE INDEX backtest_sweep_results_seq ON backtest_sweep_results (sweep_id, seq);

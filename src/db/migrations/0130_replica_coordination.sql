-- What replicas of one service must agree on beyond their data.
-- Registrations are rate-limited per client across every leaderboard replica: one token bucket per
-- client (tokens refill at LEADERBOARD_REGISTER_PER_MIN; `granted` is the outcome of the last take).
CREATE TABLE leaderboard_register_limits (
  client TEXT PRIMARY KEY,
  tokens DOUBLE PRECISION NOT NULL,
  at_ms BIGINT NOT NULL,
  granted BOOLEAN NOT NULL
);

-- When a wallet's fills were last fetched from the exchange (Postgres clock, ms): a replica asked for
-- the same wallet just after another one synced it reads the stored fills instead of fetching again.
ALTER TABLE points_wallet_sync ADD COLUMN synced_at_ms BIGINT;

-- The leaderboard's refresh queue lives on the agents themselves: an agent is due at `due_at`, and a
-- refresh worker holds it (leased_by, until lease_until) while refreshing. `tracking` is what a
-- refresh remembers to skip requests next time (see src/services/leaderboard/tracking.ts).

ALTER TABLE leaderboard_agents ADD COLUMN tracking JSONB;
ALTER TABLE leaderboard_agents ADD COLUMN due_at BIGINT NOT NULL DEFAULT 0;
ALTER TABLE leaderboard_agents ADD COLUMN leased_by TEXT;
ALTER TABLE leaderboard_agents ADD COLUMN lease_until BIGINT;
ALTER TABLE leaderboard_agents ADD COLUMN lease_seq BIGINT NOT NULL DEFAULT 0;

CREATE INDEX leaderboard_agents_due ON leaderboard_agents (due_at);

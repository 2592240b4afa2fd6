-- Boards follow the store by reading only the agents changed since their last read. Each row carries
-- the id of the transaction that last registered or refreshed it; a reader keeps the oldest
-- transaction still running at its last read (pg_snapshot_xmin) and next asks for rows changed by
-- that one or later, so a write that commits late is never skipped.
ALTER TABLE leaderboard_agents ADD COLUMN changed_xid xid8 NOT NULL DEFAULT pg_current_xact_id();

CREATE FUNCTION leaderboard_agents_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.changed_xid := pg_current_xact_id();
  RETURN NEW;
END
$$;

CREATE TRIGGER leaderboard_agents_changed
  BEFORE UPDATE OF display_name, account_value, positions_count, net_deposits, stale, refreshed_at
  ON leaderboard_agents FOR EACH ROW EXECUTE FUNCTION leaderboard_agents_changed();

CREATE INDEX leaderboard_agents_by_change ON leaderboard_agents (network, changed_xid);

-- One row per singleton job: who writes it, the term's fencing token, and until when the lease runs.
CREATE TABLE leader_leases (
  name TEXT PRIMARY KEY,
  holder TEXT NOT NULL,
  token BIGINT NOT NULL,
  backend_pid INTEGER NOT NULL,
  expires_at TIMESTAMPTZ NOT NULL
);

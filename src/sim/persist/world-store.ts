import { join } from "node:path";
import { type Db, openDb } from "../../store/sqlite.ts";
import type { RequestCounts } from "../auth/address-budget.ts";
import type { NonceSnapshot } from "../auth/nonce-book.ts";
import type { PriceState } from "../model/price-process.ts";
import type { VenueSnapshot } from "../venue/snapshot.ts";

/**
 * The sim world's state in `<dir>/sim.db` (SQLite, WAL): its clock, seed, each market's model state
 * and the venue's accounts, orders, positions, fills and funding. Each save replaces the one row in a
 * single transaction, so a crash leaves the previous save or the new one, never half of either.
 */
interface SavedWorld {
  simTime: number;
  seed: number;
  model: Record<string, PriceState>;
  venue: VenueSnapshot;
  /** Each signer's kept nonces: a signed action replayed after a restart is still refused. */
  nonces?: NonceSnapshot;
  /** Requests each address has sent and has reserved unspent (the address-based limit). */
  requests?: RequestCounts;
}

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS world_state (
     id INTEGER PRIMARY KEY CHECK (id = 1),
     saved_at INTEGER NOT NULL,
     sim_time INTEGER NOT NULL,
     seed INTEGER NOT NULL,
     model TEXT NOT NULL,
     venue TEXT NOT NULL
   )`,
  // Its own table, so a sim.db written before nonces were kept still opens.
  `CREATE TABLE IF NOT EXISTS signer_nonces (
     id INTEGER PRIMARY KEY CHECK (id = 1),
     nonces TEXT NOT NULL
   )`,
  `CREATE TABLE IF NOT EXISTS address_requests (
     id INTEGER PRIMARY KEY CHECK (id = 1),
     requests TEXT NOT NULL
   )`,
];

export class WorldStore {
  private readonly db: Db;

  constructor(dir: string) {
    this.db = openDb(join(dir, "sim.db"), SCHEMA);
  }

  load(): SavedWorld | undefined {
    const row = this.db.prepare("SELECT sim_time, seed, model, venue FROM world_state WHERE id = 1").get() as
      | { sim_time: number; seed: number; model: string; venue: string }
      | undefined;
    if (!row) return undefined;
    const nonces = this.db.prepare("SELECT nonces FROM signer_nonces WHERE id = 1").get() as
      | { nonces: string }
      | undefined;
    const requests = this.db.prepare("SELECT requests FROM address_requests WHERE id = 1").get() as
      | { requests: string }
      | undefined;
    return {
      ...(requests ? { requests: JSON.parse(requests.requests) as RequestCounts } : {}),
      simTime: row.sim_time,
      seed: row.seed,
      model: JSON.parse(row.model) as Record<string, PriceState>,
      venue: JSON.parse(row.venue) as VenueSnapshot,
      ...(nonces ? { nonces: JSON.parse(nonces.nonces) as NonceSnapshot } : {}),
    };
  }

  save(w: SavedWorld): void {
    this.db.transaction(() => {
      this.db
        .prepare(
          `INSERT INTO world_state (id, saved_at, sim_time, seed, model, venue) VALUES (1, ?, ?, ?, ?, ?)
           ON CONFLICT (id) DO UPDATE SET saved_at = excluded.saved_at, sim_time = excluded.sim_time,
             seed = excluded.seed, model = excluded.model, venue = excluded.venue`,
        )
        .run(Date.now(), w.simTime, w.seed, JSON.stringify(w.model), JSON.stringify(w.venue));
      if (w.nonces)
        this.db
          .prepare(
            `INSERT INTO signer_nonces (id, nonces) VALUES (1, ?)
             ON CONFLICT (id) DO UPDATE SET nonces = excluded.nonces`,
          )
          .run(JSON.stringify(w.nonces));
      if (w.requests)
        this.db
          .prepare(
            `INSERT INTO address_requests (id, requests) VALUES (1, ?)
             ON CONFLICT (id) DO UPDATE SET requests = excluded.requests`,
          )
          .run(JSON.stringify(w.requests));
    })();
  }

  close(): void {
    this.db.close();
  }
}

import type { Pool } from "../../db/pool.ts";
import type { RateLimiter } from "./rate-limit.ts";

/** Takes between sweeps of the buckets that have refilled (they hold nothing worth keeping). */
const SWEEP_EVERY = 1_000;

/**
 * The per-client token buckets of ClientRateLimiter, kept in Postgres (leaderboard_register_limits) so
 * a client is limited across every replica behind the load balancer, not once per replica. One
 * statement takes a token under the row's lock, so two replicas never both spend the last one.
 */
export class PgClientRateLimiter implements RateLimiter {
  private readonly perMs: number;
  private takes = 0;

  constructor(
    private readonly pool: Pool,
    private readonly ready: Promise<void>,
    perMinute: number,
    private readonly burst: number,
    private readonly now: () => number = Date.now,
  ) {
    this.perMs = perMinute / 60_000;
  }

  async take(client: string): Promise<number> {
    await this.ready;
    const t = this.now();
    if (++this.takes % SWEEP_EVERY === 0) await this.sweep(t);
    // The bucket refilled since its last take (never by a negative time: replicas' clocks differ).
    const refilled = "LEAST($3::float8, l.tokens + GREATEST(0, $4::bigint - l.at_ms) * $2::float8)";
    const { rows } = await this.pool.query<{ tokens: number; granted: boolean }>(
      `INSERT INTO leaderboard_register_limits AS l (client, tokens, at_ms, granted)
       VALUES ($1, $3::float8 - 1, $4, TRUE)
       ON CONFLICT (client) DO UPDATE SET
         granted = ${refilled} >= 1,
         tokens = CASE WHEN ${refilled} >= 1 THEN ${refilled} - 1 ELSE ${refilled} END,
         at_ms = GREATEST(l.at_ms, $4::bigint)
       RETURNING tokens, granted`,
      [client, this.perMs, this.burst, t],
    );
    const row = rows[0];
    if (!row || row.granted) return 0;
    return Math.max(1, Math.ceil((1 - row.tokens) / this.perMs / 1000));
  }

  private async sweep(t: number): Promise<void> {
    await this.pool.query(
      "DELETE FROM leaderboard_register_limits WHERE tokens + GREATEST(0, $1::bigint - at_ms) * $2::float8 >= $3",
      [t, this.perMs, this.burst],
    );
  }
}

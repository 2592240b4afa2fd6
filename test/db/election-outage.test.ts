import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LeaderElection } from "../../src/db/leader.ts";
import { type OutageProxy, startOutageProxy } from "../support/outage-proxy.ts";
import { usePostgres } from "../support/postgres.ts";
import { migrated } from "../support/replicas.ts";

/**
 * An election whose Postgres goes away: the writer steps down, retries with back-off and logs each
 * change of state once (not every attempt), and is elected again once Postgres is back.
 */

const pg = usePostgres();
let proxy: OutageProxy;
let url: string;

beforeAll(async () => {
  const direct = await pg.current.freshDatabase();
  await migrated(direct);
  proxy = await startOutageProxy(direct);
  url = proxy.via(direct);
});
afterAll(async () => {
  await proxy?.close();
});

async function until(what: string, ok: () => boolean, timeoutMs = 8_000): Promise<void> {
  const start = Date.now();
  while (!ok()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("an election during a Postgres outage", () => {
  it("logs the outage once, backs off, and is elected again afterwards", async () => {
    const lines: string[] = [];
    let terms = 0;
    const election = new LeaderElection({
      connectionString: url,
      name: "outage:job",
      holder: "replica-a",
      retryMs: 100,
      maxRetryMs: 400,
      log: (line) => lines.push(line),
      onElected: () => {
        terms++;
      },
      onDeposed: () => undefined,
    });
    try {
      await election.start();
      await until("the first term", () => terms === 1);
      expect(election.status()).toMatchObject({ role: "writer", term: "1" });
      lines.length = 0;

      await proxy.down();
      await until("stepping down", () => election.current === undefined);
      // 1.5 s at 100 ms a try would be 15 attempts: with back-off to 0.4 s, about 5, logged once.
      await new Promise((r) => setTimeout(r, 1_500));
      expect(election.status().role).toBe("follower");
      expect(lines.filter((l) => /election attempts failing/.test(l))).toHaveLength(1);
      expect(lines.length).toBeLessThanOrEqual(3);

      await proxy.up();
      await until("a second term", () => terms === 2);
      expect(lines).toContain("outage:job: replica-a elected writer (term 2)");
      expect(lines.filter((l) => /succeed again/.test(l))).toHaveLength(1);
    } finally {
      await election.stop();
    }
  }, 20_000);
});

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LocalResultsStore } from "../../../src/services/leaderboard/local-results-store.ts";
import { SqliteAgentStore } from "../../../src/services/leaderboard/store.ts";

/** `hl leaderboard list` on a shared store shows fresh values without writing them past the elected writer. */

const ADDRESS = `0x${"ab".repeat(20)}`;
let dir: string;
let shared: SqliteAgentStore;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "lb-local-"));
  shared = new SqliteAgentStore(join(dir, "leaderboard.db"));
  await shared.insert({
    network: "testnet",
    address: ADDRESS,
    displayName: "A",
    initialAccountValue: "1000",
    registeredAt: 1,
    ledgerMark: null,
    positionsCount: 0,
  });
});
afterEach(async () => {
  await shared.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("LocalResultsStore", () => {
  it("shows its own refresh results and leaves the shared store as the writer left it", async () => {
    const local = new LocalResultsStore(shared);
    await local.recordSuccess("testnet", ADDRESS, {
      accountValue: "1250.5",
      positionsCount: 2,
      netDeposits: "100",
      at: 42,
      tracking: null,
    });
    const seen = await local.get("testnet", ADDRESS);
    expect(seen).toMatchObject({
      accountValue: "1250.5",
      positionsCount: 2,
      netDeposits: "100",
      refreshedAt: 42,
    });
    expect((await local.list("testnet"))[0]).toEqual(seen);
    expect(await local.count("testnet")).toBe(1);
    expect(await shared.get("testnet", ADDRESS)).toMatchObject({
      accountValue: "1000",
      positionsCount: 0,
      refreshedAt: 1,
    });

    await local.recordFailure("testnet", ADDRESS, "timeout");
    expect(await local.get("testnet", ADDRESS)).toMatchObject({
      accountValue: "1250.5",
      stale: true,
      lastError: "timeout",
    });
    expect(await shared.get("testnet", ADDRESS)).toMatchObject({ stale: false, lastError: null });
  });

  it("refuses to register: it only reads registrations", async () => {
    const local = new LocalResultsStore(shared);
    await expect(
      local.insert({
        network: "testnet",
        address: `0x${"cd".repeat(20)}`,
        displayName: "B",
        initialAccountValue: "1",
        registeredAt: 1,
        ledgerMark: null,
        positionsCount: 0,
      }),
    ).rejects.toThrow(/read-only/);
    expect(await shared.count("testnet")).toBe(1);
  });
});

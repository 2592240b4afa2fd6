import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { leaderboardConfig } from "../../../src/services/leaderboard/config.ts";
import {
  createLeaderboardService,
  type LeaderboardService,
} from "../../../src/services/leaderboard/service.ts";

let open: { svc: LeaderboardService; dir: string }[] = [];
afterEach(async () => {
  for (const o of open) {
    await o.svc.close();
    rmSync(o.dir, { recursive: true, force: true });
  }
  open = [];
});

/** A service over a store seeded with `n` agents (reads only: the exchange is never asked). */
function service(n: number): LeaderboardService {
  const dir = mkdtempSync(join(tmpdir(), "lb-http-"));
  const svc = createLeaderboardService(leaderboardConfig({ LEADERBOARD_DB: join(dir, "lb.db") }), {
    source: () => {
      throw new Error("reads only");
    },
  });
  open.push({ svc, dir });
  for (let i = 0; i < n; i++) addAgent(svc, i, String(1000 + ((i * 37) % 500)));
  return svc;
}

function addAgent(svc: LeaderboardService, i: number, accountValue: string): void {
  const address = `0x${(i + 1).toString(16).padStart(40, "0")}`;
  svc.store.insert({
    network: "testnet",
    address,
    displayName: `agent-${i}`,
    initialAccountValue: "1000",
    registeredAt: 1_700_000_000_000 + i,
    ledgerMark: null,
    positionsCount: i % 3,
  });
  svc.store.recordSuccess("testnet", address, {
    accountValue,
    positionsCount: i % 3,
    netDeposits: "0",
    at: 1_700_000_000_000,
  });
}

const BOARD = "/api/leaderboard?network=testnet";

async function get(svc: LeaderboardService, headers: Record<string, string> = {}) {
  return svc.app.inject({ method: "GET", url: BOARD, headers });
}

describe("leaderboard full board: pre-compressed bodies and ETag", () => {
  it("serves gzip and brotli bodies compressed once per refresh, identical in content", async () => {
    const svc = service(2000);
    const board = await svc.refresher.rebuild("testnet");
    await board.compressed;
    const identity = await get(svc);
    expect(identity.statusCode).toBe(200);
    expect(identity.headers["content-encoding"]).toBeUndefined();
    expect(identity.headers.vary).toMatch(/accept-encoding/i);
    const br = await get(svc, { "accept-encoding": "gzip, deflate, br" });
    expect(br.headers["content-encoding"]).toBe("br");
    expect(br.rawPayload.equals(board.brotli!)).toBe(true);
    expect(brotliDecompressSync(br.rawPayload).equals(identity.rawPayload)).toBe(true);
    expect(br.rawPayload.length).toBeLessThan(identity.rawPayload.length / 4);
    const gz = await get(svc, { "accept-encoding": "gzip" });
    expect(gz.headers["content-encoding"]).toBe("gzip");
    expect(gz.rawPayload.equals(board.gzip!)).toBe(true);
    expect(gunzipSync(gz.rawPayload).equals(identity.rawPayload)).toBe(true);
    // q=0 refuses an encoding
    const noBr = await get(svc, { "accept-encoding": "br;q=0, gzip;q=0.5" });
    expect(noBr.headers["content-encoding"]).toBe("gzip");
    const none = await get(svc, { "accept-encoding": "identity" });
    expect(none.headers["content-encoding"]).toBeUndefined();
    expect((JSON.parse(identity.body) as { total_agents: number }).total_agents).toBe(2000);
  });

  it("answers If-None-Match with 304 while the board is unchanged, and a new ETag once it changes", async () => {
    const svc = service(50);
    await (await svc.refresher.rebuild("testnet")).compressed;
    const first = await get(svc, { "accept-encoding": "br" });
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^W\/"[\w-]+"$/);
    // every encoding of one board carries the same (weak) validator
    expect((await get(svc)).headers.etag).toBe(etag);
    const again = await get(svc, { "if-none-match": etag, "accept-encoding": "br" });
    expect(again.statusCode).toBe(304);
    expect(again.rawPayload.length).toBe(0);
    expect(again.headers.etag).toBe(etag);
    const listed = await get(svc, { "if-none-match": `"other", ${etag}` });
    expect(listed.statusCode).toBe(304);
    const star = await get(svc, { "if-none-match": "*" });
    expect(star.statusCode).toBe(304);

    addAgent(svc, 999, "5000"); // a new leader
    await (await svc.refresher.rebuild("testnet")).compressed;
    const changed = await get(svc, { "if-none-match": etag });
    expect(changed.statusCode).toBe(200);
    expect(changed.headers.etag).not.toBe(etag);
    const body = JSON.parse(changed.body) as { total_agents: number; agents: { display_name: string }[] };
    expect(body.total_agents).toBe(51);
    expect(body.agents[0]!.display_name).toBe("agent-999");
  });

  it("serves the identity body with its ETag before the compressed copies are ready", async () => {
    const svc = service(300);
    const board = await svc.refresher.rebuild("testnet");
    const early = await get(svc, { "accept-encoding": "br, gzip" });
    expect(early.statusCode).toBe(200);
    if (early.headers["content-encoding"] === undefined) {
      expect(early.rawPayload.equals(board.body)).toBe(true);
    }
    expect(early.headers.etag).toBeDefined();
    await board.compressed;
    expect((await get(svc, { "accept-encoding": "br, gzip" })).headers["content-encoding"]).toBe("br");
  });
});

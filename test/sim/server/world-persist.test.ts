import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import type { Address } from "../../../src/sim/venue.ts";
import { startSimWorld } from "../../../src/sim/world.ts";

/** A world with a state directory restores its clock, prices and accounts after a restart. */

const dir = mkdtempSync(join(tmpdir(), "sim-persist-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const USER = "0x00000000000000000000000000000000000a11ce" as Address;
const START = Date.UTC(2026, 10, 20, 12, 0, 0);

it("keeps accounts, positions, open orders, fills, funding and the clock across a restart", async () => {
  const liveCoins = ["BTC", "ETH"];
  const first = await startSimWorld({ seed: 4, speed: 1e-9, startMs: START, stateDir: dir, liveCoins });
  const v = first.venue;
  v.info({ type: "clearinghouseState", user: USER });
  const ask = Number(
    (v.info({ type: "l2Book", coin: "ETH" }) as { levels: { px: string }[][] }).levels[1]![0]!.px,
  );
  const order = (p: string, tif: "Ioc" | "Gtc", nonce: number) =>
    v.exchange(
      {
        type: "order",
        orders: [{ a: 1, b: true, p, s: "0.1", r: false, t: { limit: { tif } } }],
        grouping: "na",
      },
      USER,
      nonce,
    );
  expect(JSON.stringify(order((ask * 1.01).toFixed(1), "Ioc", 1))).toContain("filled");
  expect(JSON.stringify(order((ask * 0.9).toFixed(1), "Gtc", 2))).toContain("resting");
  first.advance(2 * 3_600_000);
  const state = v.info({ type: "clearinghouseState", user: USER }) as { assetPositions: unknown[] };
  const orders = v.info({ type: "openOrders", user: USER });
  const fills = v.info({ type: "userFills", user: USER });
  const funding = v.info({ type: "userFunding", user: USER });
  const time = first.clock.now();
  const eth = (v.info({ type: "allMids" }) as Record<string, string>).ETH;
  await first.close();

  const second = await startSimWorld({ seed: 99, speed: 1e-9, stateDir: dir, liveCoins });
  try {
    const w = second.venue;
    expect(second.seed).toBe(4);
    expect(second.clock.now()).toBe(time);
    expect(
      (w.info({ type: "clearinghouseState", user: USER }) as { assetPositions: unknown[] }).assetPositions,
    ).toEqual(state.assetPositions.map(() => expect.anything()));
    expect(w.info({ type: "openOrders", user: USER })).toEqual(orders);
    expect(w.info({ type: "userFills", user: USER })).toEqual(fills);
    expect(w.info({ type: "userFunding", user: USER })).toEqual(funding);
    expect((funding as unknown[]).length).toBeGreaterThan(0);
    // The market continues from the price it was saved at.
    const mid = Number((w.info({ type: "allMids" }) as Record<string, string>).ETH);
    expect(Math.abs(mid / Number(eth) - 1)).toBeLessThan(0.002);
    // The restored resting order is on the book and can be cancelled.
    const oid = (orders as { oid: number }[])[0]!.oid;
    expect(JSON.stringify(w.exchange({ type: "cancel", cancels: [{ a: 1, o: oid }] }, USER, 3))).toContain(
      "success",
    );
  } finally {
    await second.close();
  }
});

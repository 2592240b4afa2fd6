import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CloidFactory, engineTag, planOrders, roundIntent } from "../../src/engine/order-manager.ts";
import type { GatewayOrder } from "../../src/engine/ports.ts";
import { isValidPrice } from "../../src/exchange/rounding.ts";
import type { OrderIntent } from "../../src/strategies/sdk.ts";

const q = (side: "buy" | "sell", price: number, size = 1): OrderIntent => ({
  side,
  price,
  size,
  tif: "Alo",
  tag: "q",
});

describe("order manager", () => {
  const cloids = () => new CloidFactory(engineTag("simple_mm", "ETH-PERP"), 1_800_000_000_000);

  it("keeps open quotes within the requote tolerance and replaces moved ones", () => {
    const open: GatewayOrder[] = [
      { oid: "1", cloid: "0x1", side: "buy", price: "2498.7", size: "1" },
      { oid: "2", cloid: "0x2", side: "sell", price: "2501.3", size: "1" },
    ];
    const plan = planOrders([q("buy", 2498.75), q("sell", 2503)], open, {
      instrument: "ETH-PERP",
      szDecimals: 4,
      requoteBps: 2,
      cloids: cloids(),
    });
    expect(plan.kept).toBe(1);
    expect(plan.cancel.map((o) => o.oid)).toEqual(["2"]);
    expect(plan.place).toHaveLength(1);
    expect(plan.place[0]).toMatchObject({ side: "sell", price: "2503", tif: "Alo", reduceOnly: false });
  });

  it("a resting order is kept only for an intent with the same reduce-only flag (sent as r: true)", () => {
    const open: GatewayOrder[] = [{ oid: "1", cloid: "0x1", side: "sell", price: "2501.3", size: "1" }];
    const plan = planOrders([{ ...q("sell", 2501.3), reduceOnly: true }], open, {
      instrument: "ETH-PERP",
      szDecimals: 4,
      requoteBps: 2,
      cloids: cloids(),
    });
    expect(plan.kept).toBe(0);
    expect(plan.cancel.map((o) => o.oid)).toEqual(["1"]);
    expect(plan.place[0]).toMatchObject({ side: "sell", reduceOnly: true });
    const again = planOrders(
      [{ ...q("sell", 2501.3), reduceOnly: true }],
      [{ ...open[0]!, reduceOnly: true }],
      {
        instrument: "ETH-PERP",
        szDecimals: 4,
        requoteBps: 2,
        cloids: cloids(),
      },
    );
    expect(again.kept).toBe(1);
  });

  it("rounds to the exchange grid: passive quotes away from the touch, sizes down to the lot", () => {
    expect(roundIntent(q("buy", 2498.756, 1.23456), 4)).toEqual({ price: "2498.7", size: "1.2345" });
    expect(roundIntent(q("sell", 2501.21, 1), 4)).toEqual({ price: "2501.3", size: "1" });
    // a sub-cent asset keeps its precision (the predecessor rounded mids to 2 dp and never traded it)
    expect(roundIntent(q("buy", 0.0123456, 1500.7), 0)).toEqual({ price: "0.012345", size: "1500" });
    expect(roundIntent(q("buy", 2500, 0.00001), 4)).toBeNull();
  });

  it("property: every placed price is valid for the exchange and never more aggressive than asked", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1e-4, max: 1e6, noNaN: true }),
        fc.integer({ min: 0, max: 5 }),
        fc.boolean(),
        (px, szd, isBuy) => {
          const r = roundIntent(
            { side: isBuy ? "buy" : "sell", price: px, size: 10, tif: "Alo", tag: "" },
            szd,
          );
          if (!r) return;
          expect(isValidPrice(r.price, szd)).toBe(true);
          if (isBuy) expect(Number(r.price)).toBeLessThanOrEqual(px * (1 + 1e-12));
          else expect(Number(r.price)).toBeGreaterThanOrEqual(px * (1 - 1e-12));
        },
      ),
    );
  });

  it("client order ids are unique within a run and across restarts, and mark our orders", () => {
    const a = new CloidFactory(engineTag("simple_mm", "ETH-PERP"), 1_800_000_000_000);
    const b = new CloidFactory(engineTag("simple_mm", "ETH-PERP"), 1_800_000_000_001);
    const ids = new Set([a.next(), a.next(), b.next(), b.next()]);
    expect(ids.size).toBe(4);
    for (const id of ids) {
      expect(id).toMatch(/^0x[0-9a-f]{32}$/);
      expect(a.owns(id)).toBe(true);
    }
    expect(a.owns(new CloidFactory(engineTag("grid_mm", "ETH-PERP"), 1).next())).toBe(false);
    expect(a.owns(undefined)).toBe(false);
  });
});

import { describe, expect, it } from "vitest";
import { PaperGateway } from "../../src/engine/paper-gateway.ts";
import type { MarketSnapshot } from "../../src/strategies/sdk.ts";
import { snap } from "../strategies/helpers.ts";

const book = (mid: number, t = 1): MarketSnapshot =>
  snap({
    mid,
    bid: mid - 1,
    ask: mid + 1,
    timestampMs: t,
    book: {
      bids: [
        { px: mid - 1, sz: 1 },
        { px: mid - 2, sz: 2 },
      ],
      asks: [
        { px: mid + 1, sz: 1 },
        { px: mid + 2, sz: 2 },
      ],
    },
  });

const req = (side: "buy" | "sell", price: string, size: string, tif: "Ioc" | "Alo" | "Gtc") => ({
  instrument: "ETH-PERP",
  cloid: "0x00000000000000000000000000000001" as const,
  side,
  price,
  size,
  tif,
  reduceOnly: false,
});

describe("dry-run paper book", () => {
  it("IOC walks the real book up to its limit and cancels the rest", async () => {
    const g = new PaperGateway({ takerFeeBps: 10 });
    g.observe(book(100));
    expect(await g.place([req("buy", "102", "5", "Ioc")])).toEqual([
      { status: "filled", oid: expect.any(String) },
    ]);
    const fills = await g.fills("ETH-PERP", 0);
    expect(fills.map((f) => [f.price, f.size, f.fee])).toEqual([
      ["101", "1", "0.101"],
      ["102", "2", "0.204"],
    ]);
    expect(await g.position("ETH-PERP")).toEqual({ qty: "3", entryPx: "101.6666666667" });
    expect(await g.openOrders("ETH-PERP")).toEqual([]);
  });

  it("Alo that would cross is rejected; resting orders fill only once the market trades through", async () => {
    const g = new PaperGateway();
    g.observe(book(100));
    expect((await g.place([req("buy", "101", "1", "Alo")]))[0]!.status).toBe("rejected");
    expect((await g.place([req("buy", "99.5", "1", "Alo")]))[0]!.status).toBe("resting");
    g.observe(book(100.2, 2));
    expect(await g.fills("ETH-PERP", 0)).toEqual([]);
    g.observe(book(98.4, 3)); // ask 99.4 ≤ 99.5
    const [f] = await g.fills("ETH-PERP", 0);
    expect(f).toMatchObject({ side: "buy", price: "99.5", size: "1", timeMs: 3 });
    expect(await g.openOrders("ETH-PERP")).toEqual([]);
  });
});

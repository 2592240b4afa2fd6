import { describe, expect, it } from "vitest";
import {
  type Bar,
  MINUTE,
  orderRequest,
  T0,
  type VenueRigOptions,
  venueRig,
} from "../support/replay-venue-rig.ts";

/** Fills bounded by what the recorded market traded: candle volume, trade sizes, book levels. */

const M = MINUTE;

/** Candles with ample volume unless a bar says otherwise; fills capped at 10 % of it unless asked. */
const venue = (bars: Bar[], opts: VenueRigOptions = {}) =>
  venueRig(bars, { volume: 1_000_000, participation: 0.1, ...opts });
const order = orderRequest;

const sizes = (fills: readonly { size: string }[]) => fills.map((f) => f.size);

describe("candle fills bounded by the candle's volume", () => {
  it("an IOC of 1,000 in a candle that traded nothing does not fill", async () => {
    const { v, at } = venue([
      [100, 100, 100, 100],
      [100, 101, 99, 100, 0],
    ]);
    at(T0 + M);
    await v.place([order("buy", "101", "1000", "Ioc")]);
    at(T0 + 2 * M);
    expect(await v.fills("ETH-PERP", 0)).toEqual([]);
    expect(await v.openOrders()).toEqual([]);
  });

  it("fills at most the participation share of each candle's volume: an IOC's rest lapses, a resting order's rest rests", async () => {
    const { v, at } = venue([
      [100, 100, 100, 100],
      [100, 101, 98, 100, 50],
      [100, 101, 98, 100, 30],
    ]);
    at(T0 + M);
    await v.place([order("buy", "101", "10", "Ioc"), order("buy", "99", "1000")]);
    at(T0 + 2 * M);
    // 10 % of 50 = 5 for both orders together: the IOC (at the open) first.
    expect(sizes(await v.fills("ETH-PERP", 0))).toEqual(["5"]);
    expect((await v.openOrders()).map((o) => o.size)).toEqual(["1000"]);
    at(T0 + 3 * M);
    expect(sizes(await v.fills("ETH-PERP", T0 + 2 * M))).toEqual(["3"]);
    expect((await v.openOrders()).map((o) => o.size)).toEqual(["997"]);
  });

  it("the share is settable", async () => {
    const { v, at } = venue(
      [
        [100, 100, 100, 100],
        [100, 101, 98, 100, 50],
      ],
      { participation: 0.5 },
    );
    at(T0 + M);
    await v.place([order("buy", "101", "100", "Ioc")]);
    at(T0 + 2 * M);
    expect(sizes(await v.fills("ETH-PERP", 0))).toEqual(["25"]);
  });
});

describe("candle fill prices", () => {
  it("a resting bid crossed by a gap fills at its own price, as a maker", async () => {
    const { v, ledger, at } = venue([
      [100, 100, 100, 100],
      [100, 100, 99, 99.5], // touched 99: no fill
      [95, 96, 94, 95],
    ]);
    at(T0 + M);
    await v.place([order("buy", "99", "1")]);
    at(T0 + 2 * M);
    expect(await v.fills("ETH-PERP", 0)).toEqual([]);
    at(T0 + 3 * M);
    const [f] = await v.fills("ETH-PERP", 0);
    expect(f).toMatchObject({ price: "99", size: "1", timeMs: T0 + 2 * M });
    expect(ledger.fills[0]?.liquidity).toBe("maker");
  });

  it("an IOC at the touch whose slipped price passes its limit does not fill, so the slippage changes the result", async () => {
    const run = async (slippageBps: number) => {
      const { v, at } = venue(
        [
          [100, 100, 100, 100],
          [100, 100.2, 99.8, 100],
        ],
        { slippageBps },
      );
      at(T0 + M);
      await v.place([order("buy", "100.05", "1", "Ioc")]);
      at(T0 + 2 * M);
      return (await v.fills("ETH-PERP", 0)).map((f) => f.price);
    };
    // The ask at arrival is 100.01 (one tick over the close): 1 bp more is 100.020001 → 100.03 on the grid.
    expect(await run(1)).toEqual(["100.03"]);
    expect(await run(50)).toEqual([]);
  });
});

describe("recorded trades and books: each trade and level used once", () => {
  const bars: Bar[] = [
    [100, 100.2, 99.5, 100, 50],
    [100, 100.2, 99.5, 100, 50],
    [100, 100.2, 99.5, 100, 50],
  ];

  it("one recorded 1-lot trade fills one lot in all, not one per order", async () => {
    const { v, at } = venue(bars, {
      books: [{ t: T0 + M + 1, bids: [["99.9", "3"]], asks: [["100.1", "2"]] }],
      trades: [{ t: T0 + M + 30, px: "100", sz: "1", side: "A", tid: "1" }],
      latencyMs: 5,
    });
    at(T0 + M);
    await v.snapshot("ETH-PERP");
    await v.place([order("buy", "100", "1"), order("buy", "100", "1")]);
    at(T0 + 2 * M);
    expect(sizes(await v.fills("ETH-PERP", 0))).toEqual(["1"]);
  });

  it("two IOCs of 5 against a 5-lot ask fill 5 in all", async () => {
    const { v, at } = venue(bars, {
      books: [{ t: T0 + M + 1, bids: [["99.9", "3"]], asks: [["100.1", "5"]] }],
      trades: [{ t: T0 + 2 * M + 30, px: "100", sz: "1", side: "A", tid: "1" }],
      latencyMs: 5,
    });
    at(T0 + M);
    await v.snapshot("ETH-PERP");
    await v.place([order("buy", "100.1", "5", "Ioc"), order("buy", "100.1", "5", "Ioc")]);
    at(T0 + 2 * M);
    expect(sizes(await v.fills("ETH-PERP", 0))).toEqual(["5"]);
  });

  it("a queue position survives its level leaving the recorded depth", async () => {
    const { v, at } = venue(bars, {
      books: [
        {
          t: T0 + M + 1,
          bids: [
            ["100", "5"],
            ["99.9", "7"],
          ],
          asks: [["100.1", "2"]],
        },
        // Only one level recorded: 99.9 is beyond the recorded depth, not emptied.
        { t: T0 + M + 20, bids: [["100", "5"]], asks: [["100.1", "2"]] },
        {
          t: T0 + M + 40,
          bids: [
            ["100", "5"],
            ["99.9", "7"],
          ],
          asks: [["100.1", "2"]],
        },
      ],
      trades: [{ t: T0 + M + 50, px: "99.9", sz: "3", side: "A", tid: "1" }],
      latencyMs: 5,
    });
    at(T0 + M);
    await v.snapshot("ETH-PERP");
    await v.place([order("buy", "99.9", "1")]);
    at(T0 + 2 * M);
    // 7 ahead; the 3 traded at 99.9 are theirs.
    expect(await v.fills("ETH-PERP", 0)).toEqual([]);
  });
});

describe("where the recording does not cover a moment, prices come from the candles", () => {
  it("after the recording ends the snapshot follows the candles, and a resting bid fills on the candle's low", async () => {
    const { v, at } = venue(
      [
        [100, 100.2, 99.5, 100, 50],
        [100, 100.2, 99.5, 100, 50],
        [150, 151, 149, 150, 50],
        [150, 151, 94, 95, 50],
      ],
      {
        books: [{ t: T0 + 1, bids: [["100", "3"]], asks: [["100.01", "2"]] }],
        trades: [{ t: T0 + 30, px: "100", sz: "1", side: "A", tid: "1" }],
      },
    );
    at(T0 + 3 * M);
    expect((await v.snapshot("ETH-PERP")).mid).toBe(150);
    await v.place([order("buy", "99", "1")]);
    at(T0 + 4 * M);
    expect(sizes(await v.fills("ETH-PERP", 0))).toEqual(["1"]);
  });

  it("a recorder outage inside the recording: its candles replay from their range", async () => {
    const { v, at } = venue(
      [
        [100, 100.2, 99.5, 100, 50],
        [100, 100.2, 95, 100, 50],
        [100, 100.2, 99.5, 100, 50],
      ],
      {
        books: [
          { t: T0 + 1, bids: [["100", "3"]], asks: [["100.01", "2"]] },
          { t: T0 + 2 * M + 1, bids: [["100", "3"]], asks: [["100.01", "2"]] },
        ],
      },
    );
    at(T0 + M);
    await v.place([order("buy", "99", "1")]);
    at(T0 + 2 * M);
    expect(sizes(await v.fills("ETH-PERP", 0))).toEqual(["1"]);
  });
});

import { afterEach, describe, expect, it, vi } from "vitest";
import type { SimWorld } from "../../../src/sim/world.ts";

/**
 * A world makes at start only the pasts of the markets it runs (liveCoins); any other market's 30
 * days are made the first time someone looks at them, and are the very past that market would have
 * had if it had been made at start.
 */

const made: string[] = [];
vi.mock("../../../src/sim/model/backfill.ts", async (original) => {
  const real = await original<typeof import("../../../src/sim/model/backfill.ts")>();
  return {
    ...real,
    pastMaker: (opts: Parameters<typeof real.pastMaker>[0]) => {
      const make = real.pastMaker(opts);
      return (m: Parameters<ReturnType<typeof real.pastMaker>>[0]) => {
        made.push(m.coin);
        return make(m);
      };
    },
  };
});
const { startSimWorld } = await import("../../../src/sim/world.ts");

const FROZEN = 1e-9;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const START = Date.UTC(2026, 10, 20, 12, 7, 30);

interface Candle {
  t: number;
  c: string;
  v: string;
}

const worlds: SimWorld[] = [];
afterEach(async () => {
  await Promise.all(worlds.splice(0).map((w) => w.close()));
  made.length = 0;
});

async function world(liveCoins: string[]): Promise<SimWorld> {
  const w = await startSimWorld({
    seed: 3,
    speed: FROZEN,
    startMs: START,
    historyDays: 30,
    houseMakers: false,
    liveCoins,
  });
  worlds.push(w);
  return w;
}

/** Every funding record of the month, paging as a client must (500 per answer). */
function allFunding(info: (req: Record<string, unknown>) => unknown, coin: string): { time: number }[] {
  const out: { time: number }[] = [];
  for (let start = START - 30 * DAY; ; ) {
    const page = info({ type: "fundingHistory", coin, startTime: start }) as { time: number }[];
    out.push(...page);
    if (page.length < 500) return out;
    start = page.at(-1)!.time + 1;
  }
}

/** What a client sees of a market's past: a month of hours, an hour of minutes 29 days back, funding, trades. */
function pastOf(w: SimWorld, coin: string) {
  const info = (req: Record<string, unknown>) => w.venue.info(req as { type: string });
  return {
    hours: info({
      type: "candleSnapshot",
      req: { coin, interval: "1h", startTime: START - 30 * DAY },
    }) as Candle[],
    oldMinutes: info({
      type: "candleSnapshot",
      req: { coin, interval: "1m", startTime: START - 29 * DAY, endTime: START - 29 * DAY + HOUR - 1 },
    }) as Candle[],
    funding: allFunding(info, coin),
    // Trade ids and hashes number the trades in the order their markets were made: left out.
    trades: (info({ type: "recentTrades", coin }) as { tid: number; hash: string }[]).map(
      ({ tid: _, hash: __, ...trade }) => trade,
    ),
  };
}

describe("a market's past made on demand", () => {
  it("is not made at start, then serves 30 days when first asked, the same past a start would have made", async () => {
    const lazy = await world(["BTC"]);
    expect(made).toEqual(["BTC"]);

    const asked = pastOf(lazy, "ETH");
    expect(made.filter((c) => c === "ETH")).toHaveLength(1);
    expect(asked.hours.length).toBeGreaterThanOrEqual(30 * 24);
    expect(asked.hours[0]!.t).toBeLessThanOrEqual(START - 30 * DAY + HOUR);
    expect(asked.oldMinutes).toHaveLength(60);
    expect(asked.oldMinutes.every((k) => Number(k.v) > 0)).toBe(true);
    expect(asked.funding.length).toBeGreaterThanOrEqual(30 * 24 - 1);
    expect(asked.trades).toHaveLength(100);
    // Asked again: served from what was made, not made again.
    expect(pastOf(lazy, "ETH")).toEqual(asked);
    expect(made.filter((c) => c === "ETH")).toHaveLength(1);

    made.length = 0;
    const eager = await world(["ETH"]);
    expect(made).toEqual(["ETH"]);
    expect(pastOf(eager, "ETH")).toEqual(asked);
  });

  it("is made before the market's first trade, so the trade follows its past", async () => {
    const w = await world(["BTC"]);
    const user = "0x00000000000000000000000000000000000000a1" as const;
    const other = "0x00000000000000000000000000000000000000a2" as const;
    w.venue.deposit(user, "100000");
    w.venue.deposit(other, "100000");
    const asset = w.venue.markets().find((m) => m.coin === "SOL")!.asset;
    expect(made).not.toContain("SOL");
    const px = (w.venue.info({ type: "allMids" }) as Record<string, string>).SOL!;
    const order = (u: `0x${string}`, b: boolean, nonce: number) =>
      w.venue.exchange(
        {
          type: "order",
          orders: [{ a: asset, b, p: px, s: "1", r: false, t: { limit: { tif: "Gtc" } } }],
          grouping: "na",
        },
        u,
        nonce,
      );
    order(user, true, 1);
    order(other, false, 2);
    expect(made).toContain("SOL");
    const trades = w.venue.info({ type: "recentTrades", coin: "SOL" }) as { users: string[] }[];
    expect(trades).toHaveLength(100);
    expect(trades.at(-1)!.users).toEqual([user, other]);
  });
});

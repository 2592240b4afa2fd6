import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { D } from "../../../src/core/decimal.ts";
import { LIQUIDATOR } from "../../../src/sim/venue/index.ts";
import type { Address } from "../../../src/sim/venue.ts";
import { ALICE, BOB, BUILDER, CAROL, T0, testVenue } from "./helpers.ts";

const DAVE: Address = "0x4444444444444444444444444444444444444444";
const USERS = [ALICE, BOB, CAROL, DAVE];
const BALANCE = 1500;
const EVERYONE = [...USERS, BUILDER, LIQUIDATOR];

interface MarketCase {
  asset: number;
  coin: string;
  ref: number;
  tick: number;
  tickDp: number;
  lot: number;
  lotDp: number;
}
const MARKETS: MarketCase[] = [
  { asset: 0, coin: "BTC", ref: 97000, tick: 1, tickDp: 0, lot: 0.005, lotDp: 3 },
  { asset: 1, coin: "ETH", ref: 3400, tick: 0.1, tickDp: 1, lot: 0.05, lotDp: 2 },
  { asset: 120000, coin: "yex:VXX", ref: 45, tick: 0.01, tickDp: 2, lot: 1, lotDp: 0 },
];

type Step =
  | {
      kind: "order";
      user: number;
      m: number;
      isBuy: boolean;
      off: number;
      lots: number;
      tif: "Gtc" | "Ioc" | "Alo";
      reduce: boolean;
      fee: number;
    }
  | { kind: "cancel"; user: number; m: number; oid: number }
  | { kind: "cancelAll"; user: number }
  | { kind: "oracle"; m: number; bp: number }
  | { kind: "advance"; dt: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 14,
    arbitrary: fc.record({
      kind: fc.constant("order" as const),
      user: fc.integer({ min: 0, max: 3 }),
      m: fc.integer({ min: 0, max: 2 }),
      isBuy: fc.boolean(),
      off: fc.integer({ min: -15, max: 15 }),
      lots: fc.integer({ min: 1, max: 40 }),
      tif: fc.constantFrom("Gtc" as const, "Ioc" as const, "Alo" as const),
      reduce: fc.boolean(),
      fee: fc.constantFrom(-1, 0, 10, 50),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("cancel" as const),
      user: fc.integer({ min: 0, max: 3 }),
      m: fc.integer({ min: 0, max: 2 }),
      oid: fc.integer({ min: 1, max: 80 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("cancelAll" as const), user: fc.integer({ min: 0, max: 3 }) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("oracle" as const),
      m: fc.integer({ min: 0, max: 2 }),
      bp: fc.integer({ min: -1500, max: 1500 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("advance" as const), dt: fc.integer({ min: 1, max: 20_000 }) }),
  },
);

interface Observed {
  fills: unknown[][];
  states: unknown[];
  liquidations: number;
}

/** Runs the steps, checking the invariants after each one; returns everything observable for the determinism check. */
function run(steps: Step[], seed: number): Observed {
  const t = testVenue({ seed, balance: String(BALANCE) });
  t.clock.now = T0 + 1000;
  for (const u of EVERYONE) t.state(u);
  for (const u of USERS) {
    t.ex(u, { type: "approveBuilderFee", maxFeeRate: "0.05%", builder: BUILDER, nonce: 1 });
    t.ex(u, { type: "updateLeverage", asset: 0, isCross: true, leverage: 40 });
    t.ex(u, { type: "updateLeverage", asset: 1, isCross: true, leverage: 25 });
  }
  const deposits = new D(BALANCE).mul(EVERYONE.length - 1);
  const reduceOnlyOids = new Set<string>();
  const oracle = MARKETS.map((m) => m.ref);

  for (const s of steps) {
    if (s.kind === "order") {
      const m = MARKETS[s.m]!;
      const px = (oracle[s.m]! + s.off * m.tick).toFixed(m.tickDp);
      const sz = (s.lots * m.lot).toFixed(m.lotDp);
      const user = USERS[s.user]!;
      const r = t.order(
        user,
        {
          a: m.asset,
          b: s.isBuy,
          p: String(Number(px)),
          s: String(Number(sz)),
          r: s.reduce,
          t: { limit: { tif: s.tif } },
        },
        s.fee >= 0 ? { b: BUILDER, f: s.fee } : undefined,
      ) as Record<string, { oid?: number; avgPx?: string }>;
      const done = r.filled ?? r.resting;
      if (done?.oid !== undefined) {
        if (s.reduce) reduceOnlyOids.add(`${user}:${done.oid}`);
        // Fills never worse than the limit.
        const fills = t.venue.info({ type: "userFills", user }) as { oid: number; px: string }[];
        for (const f of fills.filter((x) => x.oid === done.oid)) {
          if (s.isBuy) expect(new D(f.px).lte(px)).toBe(true);
          else expect(new D(f.px).gte(px)).toBe(true);
        }
      }
    } else if (s.kind === "cancel") {
      t.ex(USERS[s.user]!, { type: "cancel", cancels: [{ a: MARKETS[s.m]!.asset, o: s.oid }] });
    } else if (s.kind === "cancelAll") {
      const user = USERS[s.user]!;
      for (const dex of [undefined, "yex"]) {
        const open = t.venue.info({ type: "openOrders", user, ...(dex ? { dex } : {}) }) as {
          coin: string;
          oid: number;
        }[];
        const cancels = open.map((o) => ({ a: MARKETS.find((m) => m.coin === o.coin)!.asset, o: o.oid }));
        const r = t.ex(user, { type: "cancel", cancels });
        expect(JSON.stringify(r)).not.toContain("error");
      }
      expect(t.venue.info({ type: "openOrders", user })).toEqual([]);
    } else if (s.kind === "oracle") {
      const m = MARKETS[s.m]!;
      oracle[s.m] = Number((oracle[s.m]! * (1 + s.bp / 10_000)).toFixed(m.tickDp));
      t.venue.setOraclePrice(m.coin, oracle[s.m]!);
    } else {
      t.clock.now += s.dt;
      t.venue.advance(t.clock.now);
    }

    // No crossed book at rest.
    for (const m of MARKETS) {
      const book = t.venue.info({ type: "l2Book", coin: m.coin }) as { levels: { px: string }[][] };
      const bid = book.levels[0]![0];
      const ask = book.levels[1]![0];
      if (bid && ask) expect(new D(bid.px).lt(ask.px)).toBe(true);
    }
    // Positions net to zero per coin; equity + exchange fees equals what was deposited.
    const net = new Map<string, InstanceType<typeof D>>();
    let equity = new D(0);
    for (const u of EVERYONE) {
      for (const dex of [undefined, "xyz", "yex"]) {
        const st = t.state(u, dex);
        equity = equity.plus(st.marginSummary.accountValue);
        for (const p of st.assetPositions)
          net.set(p.position.coin, (net.get(p.position.coin) ?? new D(0)).plus(p.position.szi));
      }
    }
    for (const v of net.values()) expect(v.isZero()).toBe(true);
    expect(equity.plus(t.venue.feesCollected()).toFixed()).toBe(deposits.toFixed());
  }

  // Reduce-only fills never increase exposure.
  const fills: unknown[][] = [];
  const states: unknown[] = [];
  for (const u of EVERYONE) {
    const fs = t.venue.info({ type: "userFills", user: u }) as {
      oid: number;
      startPosition: string;
      sz: string;
      side: string;
    }[];
    for (const f of fs) {
      if (!reduceOnlyOids.has(`${u}:${f.oid}`)) continue;
      const start = new D(f.startPosition);
      const end = start.plus(f.side === "B" ? f.sz : new D(f.sz).neg());
      expect(end.abs().lte(start.abs())).toBe(true);
      expect(end.isZero() || end.isPositive() === start.isPositive()).toBe(true);
    }
    fills.push(fs);
    for (const dex of [undefined, "xyz", "yex"]) states.push(t.state(u, dex));
    states.push(t.venue.info({ type: "historicalOrders", user: u }));
  }
  return {
    fills,
    states,
    liquidations: (t.venue.info({ type: "userFills", user: LIQUIDATOR }) as unknown[]).length,
  };
}

describe("venue properties", () => {
  it("generates runs that trade and liquidate (so the properties below can fail)", () => {
    const samples = fc.sample(fc.array(step, { minLength: 60, maxLength: 60 }), { numRuns: 40, seed: 3 });
    let fills = 0;
    let liquidations = 0;
    for (const steps of samples) {
      const r = run(steps, 1);
      fills += r.fills.reduce((n, f) => n + f.length, 0);
      liquidations += r.liquidations;
    }
    expect(fills).toBeGreaterThan(100);
    expect(liquidations).toBeGreaterThan(0);
  });

  it("keeps the book uncrossed, fills within limits, positions netted, money conserved, reduce-only reducing", () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 60, size: "max" }), (steps) => {
        run(steps, 7);
      }),
      { numRuns: 60 },
    );
  });

  it("is deterministic: same seed and actions give identical fills and state", () => {
    fc.assert(
      fc.property(
        fc.array(step, { minLength: 1, maxLength: 40, size: "max" }),
        fc.integer({ min: 0, max: 1000 }),
        (steps, seed) => {
          expect(JSON.stringify(run(steps, seed))).toBe(JSON.stringify(run(steps, seed)));
        },
      ),
      { numRuns: 15 },
    );
  });
});

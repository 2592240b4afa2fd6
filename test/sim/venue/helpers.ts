import {
  createVenue,
  DEFAULT_MARKETS,
  type MarketSpec,
  type SimVenue,
  type VenueOptions,
} from "../../../src/sim/venue/index.ts";
import type { Address, ExchangeResponse, WireOrder } from "../../../src/sim/venue.ts";

export const ALICE: Address = "0x1111111111111111111111111111111111111111";
export const BOB: Address = "0x2222222222222222222222222222222222222222";
export const CAROL: Address = "0x3333333333333333333333333333333333333333";
export const BUILDER: Address = "0xb0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0";

/** 2026-11-22T00:00:00Z: a fixed, hour-aligned start for deterministic tests. */
export const T0 = Date.UTC(2026, 10, 22);

export interface TestVenue {
  venue: SimVenue;
  clock: { now: number };
  order(
    user: Address,
    o: Partial<WireOrder> & { a: number; b: boolean; p: string; s: string },
    builder?: { b: Address; f: number },
  ): unknown;
  ex(user: Address, action: Record<string, unknown>): ExchangeResponse;
  state(user: Address, dex?: string): ClearinghouseState;
}

export interface ClearinghouseState {
  marginSummary: { accountValue: string; totalNtlPos: string; totalRawUsd: string; totalMarginUsed: string };
  crossMarginSummary: { accountValue: string };
  withdrawable: string;
  assetPositions: { position: Record<string, unknown> & { coin: string; szi: string; entryPx: string } }[];
}

/**
 * Prices the venue tests reason about (their expected margins, fills and funding are worked out at
 * these), set over the recorded universe so asset ids, decimals and tables stay mainnet's.
 */
const TEST_PRICES: Record<string, string> = {
  BTC: "97000",
  ETH: "3400",
  SOL: "180",
  HYPE: "35",
  ARB: "0.45",
  DOGE: "0.17",
  AVAX: "25",
  LINK: "15",
  XRP: "2.3",
  SUI: "3.5",
  BNB: "700",
  TAO: "400",
  TON: "3",
};
export const TEST_MARKETS: MarketSpec[] = DEFAULT_MARKETS.map((m) =>
  TEST_PRICES[m.name] ? { ...m, startPx: TEST_PRICES[m.name]! } : m,
);

export function testVenue(
  opts: {
    seed?: number;
    markets?: MarketSpec[];
    balance?: string;
    limits?: VenueOptions["limits"];
    scheduleCancelAnyVolume?: boolean;
  } = {},
): TestVenue {
  const clock = { now: T0 };
  const venue = createVenue({
    seed: opts.seed ?? 1,
    clock: () => clock.now,
    markets: opts.markets ?? TEST_MARKETS,
    startingBalance: opts.balance ?? "100000",
    ...(opts.limits ? { limits: opts.limits } : {}),
    scheduleCancelAnyVolume: opts.scheduleCancelAnyVolume ?? false,
  });
  const ex = (user: Address, action: Record<string, unknown>) =>
    venue.exchange(action as never, user, clock.now);
  return {
    venue,
    clock,
    ex,
    order(user, o, builder) {
      const w: WireOrder = { r: false, t: { limit: { tif: "Gtc" } }, ...o };
      const action: Record<string, unknown> = { type: "order", orders: [w], grouping: "na" };
      if (builder) action.builder = builder;
      const r = ex(user, action);
      if (r.status === "err") return { topError: r.response };
      return (r.response.data as { statuses: unknown[] }).statuses[0];
    },
    state(user, dex) {
      return venue.info({ type: "clearinghouseState", user, ...(dex ? { dex } : {}) }) as ClearinghouseState;
    },
  };
}

/**
 * Turn dex abstraction on for these accounts, as a live user does before trading HIP-3 dexes from the
 * main perp balance (a new account keeps each dex's USDC apart).
 */
export function dexAbstraction(t: TestVenue, ...users: Address[]): void {
  for (const user of users) {
    const r = t.ex(user, { type: "userDexAbstraction", user, enabled: true });
    if (r.status !== "ok") throw new Error(`userDexAbstraction for ${user}: ${r.response}`);
  }
}

export const BTC = 0;
export const ETH = 1;
export const SOL = 5;

import type { MarketParams } from "./market-params.ts";
import { floorSz, roundPx, stepPx } from "./price-grid.ts";

/** One resting house order the model wants on the book. */
export interface HouseQuote {
  isBuy: boolean;
  px: string;
  sz: string;
}

interface LadderInput {
  oraclePx: number;
  /** Target premium of the book over the oracle (fraction). */
  premium: number;
  szDecimals: number;
  params: MarketParams;
  /** Notional of the impact prices that set the exchange's premium (USD). */
  impactNotionalUsd: number;
  /** Main dex premium = impact-price gap beyond the oracle; HIP-3 premium = impact mid / oracle − 1. */
  premiumStyle: "main" | "hip3";
  levels?: number;
}

/** Levels the house quotes each side: the exchange's l2Book sends up to 20. */
export const HOUSE_LEVELS = 20;
/** Smallest order notional the exchange accepts (USD); house levels stay above it. */
const MIN_NOTIONAL_USD = 10;
/** Below this target the main-dex book simply straddles the oracle (premium 0). */
const PREMIUM_DEAD_ZONE = 0.00002;

/** Distance (fraction) of level i from the centre, and its notional. */
function levelShape(params: MarketParams, i: number): { dist: number; notional: number } {
  const half = params.halfSpreadBps / 1e4;
  const step = (1.5 * params.halfSpreadBps + 0.5) / 1e4;
  return { dist: half + i * step, notional: params.levelNotionalUsd * (1 + 0.6 * i) };
}

/** Average distance from the centre at which a market order of `notional` fills against the ladder. */
function impactDistance(params: MarketParams, levels: number, notional: number): number {
  let left = notional;
  let weighted = 0;
  for (let i = 0; i < levels && left > 0; i++) {
    const { dist, notional: n } = levelShape(params, i);
    const take = Math.min(left, n);
    weighted += take * dist;
    left -= take;
  }
  const filled = notional - left;
  return filled > 0 ? weighted / filled : levelShape(params, levels - 1).dist;
}

/** Where to centre the ladder so the exchange's premium formula reads the target premium. */
function ladderCentre(input: LadderInput, levels: number): number {
  const o = input.oraclePx;
  const p = input.premium;
  if (input.premiumStyle === "hip3") return o * (1 + p);
  if (Math.abs(p) < PREMIUM_DEAD_ZONE) return o;
  const a = impactDistance(input.params, levels, input.impactNotionalUsd);
  // impactBid = c(1−a) sits p above the oracle, or impactAsk = c(1+a) sits |p| below it.
  return p > 0 ? (o * (1 + p)) / (1 - a) : (o * (1 + p)) / (1 + a);
}

/** The house makers' ladder: several levels each side on the exchange's price grid, deeper = larger. */
export function houseLadder(input: LadderInput): HouseQuote[] {
  const levels = input.levels ?? HOUSE_LEVELS;
  const c = ladderCentre(input, levels);
  const quotes: HouseQuote[] = [];
  let bestBid: string | undefined;
  for (const isBuy of [true, false]) {
    // The asks start above the best bid: a touch narrower than a tick is one tick wide.
    let prev: string | undefined = isBuy ? undefined : bestBid;
    for (let i = 0; i < levels; i++) {
      const { dist, notional } = levelShape(input.params, i);
      let px = roundPx(isBuy ? c * (1 - dist) : c * (1 + dist), input.szDecimals, isBuy ? "down" : "up");
      // Levels closer than one tick collapse; push each one a tick beyond the previous.
      if (prev !== undefined && (isBuy ? Number(px) >= Number(prev) : Number(px) <= Number(prev))) {
        px = stepPx(prev, input.szDecimals, isBuy ? -1 : 1);
      }
      if (isBuy && i === 0) bestBid = px;
      const pxNum = Number(px);
      if (!(pxNum > 0)) break;
      const sz = floorSz(Math.max(notional, MIN_NOTIONAL_USD * 1.5) / pxNum, input.szDecimals);
      if (Number(sz) * pxNum < MIN_NOTIONAL_USD) continue;
      quotes.push({ isBuy, px, sz });
      prev = px;
    }
  }
  return quotes;
}

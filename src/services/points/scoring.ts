import { D, type Dec, dec } from "../../core/decimal.ts";
import { decimalUnits, fromUnits, pow10, unitsOf } from "./units.ts";

/**
 * BTCSWP launch points, pure.
 *
 *   points = (volumeUSD / 1000) · marketMult · roleMult · proximityGate
 *
 * volumeUSD = px·sz. roleMult: maker or taker (taker = the fill crossed the book). proximityGate is 1
 * when |px − mark| ≤ band·mark (a fill exactly on the band edge is inside), else 0. At most
 * `dailyCapUsd` of eligible volume counts per wallet per UTC day, consumed in fill-time order; the
 * fill that crosses the cap counts for the part below it.
 *
 * Each fill gets exactly one outcome, checked in this order: no eligible builder (`no_builder`), no
 * oracle mark within tolerance (`no_mark`), outside the band (`out_of_band`), nothing left under
 * the day's cap (`capped`); otherwise it is eligible (perhaps partly capped).
 *
 * The per-fill arithmetic is exact fixed-point decimal on bigints (volumes in units of 1e-36 USD):
 * it is the hot loop of the points service, and decimal.js objects cost several times more.
 */

export type Exclusion = "no_builder" | "no_mark" | "out_of_band" | "capped";
export type Attribution = "confirmed" | "provisional" | null;
/** Exclusion reasons in the order the API lists them. */
export const EXCLUSION_REASONS: readonly Exclusion[] = ["out_of_band", "no_builder", "capped", "no_mark"];

export interface ScoringRules {
  marketMult: Dec;
  makerMult: Dec;
  takerMult: Dec;
  /** Half-width of the proximity band, in basis points of the mark. */
  bandBps: Dec;
  /** Eligible USD volume per wallet per UTC day. */
  dailyCapUsd: Dec;
}

export const BTCSWP_RULES: ScoringRules = {
  marketMult: dec("1.5"),
  makerMult: dec("2.0"),
  takerMult: dec("1.5"),
  bandBps: dec("25"),
  dailyCapUsd: dec("50000"),
};

export interface ScoringFill {
  /** Fill time, ms since epoch (UTC). */
  time: number;
  /** Decimal strings, as the exchange sends them. */
  px: string;
  sz: string;
  /** True for a taker fill. */
  crossed: boolean;
  /** Oracle mark at fill time (decimal string); null when none was stored within tolerance. */
  mark: string | null;
  /** Eligible-builder attribution: confirmed by the daily file, provisional, or none. */
  attribution: Attribution;
}

/** Volumes in units of 10^-USD_DP USD. */
const USD_DP = 36;
const PRICE_DP = 18;

interface FillOutcome {
  /** UTC day, YYYY-MM-DD. */
  day: string;
  volume: bigint;
  /** The part of the volume that scores. */
  eligible: bigint;
  /** The part of an in-band, attributed fill's volume cut by the daily cap. */
  capped: bigint;
  excluded: Exclusion | null;
  taker: boolean;
  provisional: boolean;
}

interface DayScore {
  date: string;
  points: Dec;
  eligibleVolumeUsd: Dec;
  cappedVolumeUsd: Dec;
}

export interface WalletScore {
  totalPoints: Dec;
  eligibleVolumeUsd: Dec;
  provisionalPoints: Dec;
  fillsTotal: number;
  fillsEligible: number;
  byDay: DayScore[];
  excluded: Record<Exclusion, number>;
}

const DAY_MS = 86_400_000;

/** A USD amount held in scoring units, as a decimal. */
export function usd(units: bigint): Dec {
  return new D(fromUnits(units, USD_DP));
}

/** Points per USD of eligible volume for a role. */
function pointsPerUsd(rules: ScoringRules, taker: boolean): Dec {
  return rules.marketMult.times(taker ? rules.takerMult : rules.makerMult).div(1000);
}

export function fillPoints(rules: ScoringRules, o: FillOutcome): Dec {
  return usd(o.eligible).times(pointsPerUsd(rules, o.taker));
}

/** The band as an exact test |px − mark|·10⁴·10^k ≤ bps·10^k·mark on PRICE_DP units. */
interface Band {
  lhsScale: bigint;
  rhsScale: bigint;
}

function band(rules: ScoringRules): Band {
  const bps = decimalUnits(rules.bandBps.toFixed());
  return { lhsScale: 10_000n * pow10(bps.dp), rhsScale: bps.units };
}

function within(b: Band, px: bigint, mark: bigint): boolean {
  const diff = px > mark ? px - mark : mark - px;
  return diff * b.lhsScale <= mark * b.rhsScale;
}

interface DayAccumulator {
  date: string;
  remaining: bigint;
  maker: bigint;
  taker: bigint;
  provisionalMaker: bigint;
  provisionalTaker: bigint;
  capped: bigint;
}

function newDay(dayIndex: number, cap: bigint): DayAccumulator {
  const date = new Date(dayIndex * DAY_MS).toISOString().slice(0, 10);
  return {
    date,
    remaining: cap,
    maker: 0n,
    taker: 0n,
    provisionalMaker: 0n,
    provisionalTaker: 0n,
    capped: 0n,
  };
}

type Units = { units: bigint; dp: number };

/** px·sz in USD_DP units, exact. */
function volumeOf(p: Units, s: Units): bigint {
  const dp = p.dp + s.dp;
  if (dp > USD_DP) throw new RangeError(`px·sz has more than ${USD_DP} decimals`);
  return p.units * s.units * pow10(USD_DP - dp);
}

/** A parsed price in PRICE_DP units. */
function priceUnits(p: Units): bigint {
  if (p.dp > PRICE_DP) throw new RangeError(`price has more than ${PRICE_DP} decimals`);
  return p.units * pow10(PRICE_DP - p.dp);
}

/**
 * Score one wallet's fills. Fills are taken in time order (sorted here; equal times keep their
 * given order). Volumes are summed per role and day, so points are multiplied once per day.
 */
export function scoreWallet(
  rules: ScoringRules,
  fills: readonly ScoringFill[],
): { outcomes: FillOutcome[]; score: WalletScore } {
  const order = isSorted(fills) ? fills : [...fills].sort((a, b) => a.time - b.time);
  const outcomes: FillOutcome[] = new Array(order.length);
  const days: DayAccumulator[] = [];
  const excluded: Record<Exclusion, number> = { out_of_band: 0, no_builder: 0, capped: 0, no_mark: 0 };
  const cap = unitsOf(rules.dailyCapUsd.toFixed(), USD_DP);
  const gate = band(rules);
  let fillsEligible = 0;
  let lastMark: string | undefined;
  let lastMarkUnits = 0n;
  let day: DayAccumulator | undefined;
  let dayIndex = Number.NaN;

  for (let i = 0; i < order.length; i++) {
    const f = order[i]!;
    const idx = Math.floor(f.time / DAY_MS);
    if (idx !== dayIndex) {
      dayIndex = idx;
      day = newDay(idx, cap);
      days.push(day);
    }
    const d = day!;
    const px = decimalUnits(f.px);
    const volume = volumeOf(px, decimalUnits(f.sz));
    let reason: Exclusion | null = null;
    if (f.attribution === null) reason = "no_builder";
    else if (f.mark === null) reason = "no_mark";
    else {
      // Consecutive fills often share a mark (one tick): parse it once.
      if (f.mark !== lastMark) {
        lastMark = f.mark;
        lastMarkUnits = unitsOf(f.mark, PRICE_DP);
      }
      if (!within(gate, priceUnits(px), lastMarkUnits)) reason = "out_of_band";
    }
    if (reason === null && d.remaining <= 0n) reason = "capped";

    let eligible = 0n;
    let capped = 0n;
    if (reason === "capped") capped = volume;
    else if (reason === null) {
      // The fill that crosses the cap counts for the part below it.
      eligible = volume;
      if (eligible > d.remaining) eligible = d.remaining;
      capped = volume - eligible;
      d.remaining -= eligible;
      const provisional = f.attribution === "provisional";
      if (f.crossed) {
        if (provisional) d.provisionalTaker += eligible;
        else d.taker += eligible;
      } else if (provisional) d.provisionalMaker += eligible;
      else d.maker += eligible;
      fillsEligible++;
    }
    if (reason !== null) excluded[reason]++;
    d.capped += capped;
    outcomes[i] = {
      day: d.date,
      volume,
      eligible,
      capped,
      excluded: reason,
      taker: f.crossed,
      provisional: reason === null && f.attribution === "provisional",
    };
  }

  const makerRate = pointsPerUsd(rules, false);
  const takerRate = pointsPerUsd(rules, true);
  let totalPoints = new D(0);
  let provisionalPoints = new D(0);
  let eligibleVolume = 0n;
  const byDay: DayScore[] = days.map((a) => {
    const provisional = usd(a.provisionalMaker)
      .times(makerRate)
      .plus(usd(a.provisionalTaker).times(takerRate));
    const points = usd(a.maker).times(makerRate).plus(usd(a.taker).times(takerRate)).plus(provisional);
    const volume = a.maker + a.taker + a.provisionalMaker + a.provisionalTaker;
    totalPoints = totalPoints.plus(points);
    provisionalPoints = provisionalPoints.plus(provisional);
    eligibleVolume += volume;
    return { date: a.date, points, eligibleVolumeUsd: usd(volume), cappedVolumeUsd: usd(a.capped) };
  });

  return {
    outcomes,
    score: {
      totalPoints,
      eligibleVolumeUsd: usd(eligibleVolume),
      provisionalPoints,
      fillsTotal: order.length,
      fillsEligible,
      byDay,
      excluded,
    },
  };
}

function isSorted(fills: readonly ScoringFill[]): boolean {
  for (let i = 1; i < fills.length; i++) if (fills[i]!.time < fills[i - 1]!.time) return false;
  return true;
}

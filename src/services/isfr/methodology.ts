import { D, type Dec } from "../../core/decimal.ts";
import { weightedMedian } from "./weighted-median.ts";

/**
 * ISFR methodology "isfr-v1" (pure: readings and a clock value in, the index out).
 *
 * 1. Each source reports an annualised rate (a fraction). A reading is fresh when it is at most
 *    `staleAfterMs` old at `nowMs`; stale or missing readings are left out.
 * 2. Sub-index of a class = interpolated weighted median (weighted-median.ts) of its fresh sources,
 *    with the sources' configured weights.
 * 3. R_base = lending sub-index. R_deriv = Σ w_c·S_c over the derivative classes (structured,
 *    funding, staking) that have a sub-index, w_c the configured class weights renormalised over
 *    those classes. ISFR = R_base + α·(R_deriv − R_base).
 *    Effective class weights: lending 1−α, derivative class c α·w_c (renormalised as above); they
 *    sum to 1 and ISFR = Σ weight_c · S_c.
 * 4. Fallbacks: no fresh derivative source → ISFR = R_base (lending weight 1). No fresh lending
 *    source → flat weighted median of every fresh source, each weighted by its nominal weight
 *    (below); a class's effective weight is then its share of that fresh nominal weight. No fresh
 *    source at all → no index (the service answers 503, never an old number).
 *
 * Nominal weight of a source = its share of the whole index when every source is fresh:
 *   lending source s: (1−α)·w_s/Σw_lending;  derivative source s in class c: α·(w_c/Σw_classes)·w_s/Σw_c.
 *
 * Confidence ∈ [0, 1] = coverage × agreement, where
 *   coverage  = Σ nominal weight of fresh sources / Σ nominal weight of configured sources, and
 *   agreement = Σ_c effective_weight_c · τ/(τ + MAD_c), MAD_c the weighted mean absolute deviation
 *               (in bps) of the class's fresh sources from its sub-index, τ = `agreementToleranceBps`
 *               (100 bps: sources 1 pp apart on average halve that class's agreement). A class with
 *               a single fresh source has MAD 0.
 * So all sources fresh and in agreement gives 1; losing sources or sources drifting apart lowers it.
 */
export const ISFR_VERSION = "isfr-v1";

export const RATE_CLASSES = ["lending", "structured", "funding", "staking"] as const;
export type RateClass = (typeof RATE_CLASSES)[number];
export const DERIVATIVE_CLASSES = ["structured", "funding", "staking"] as const;
export type DerivativeClass = (typeof DERIVATIVE_CLASSES)[number];

export function isRateClass(s: string): s is RateClass {
  return (RATE_CLASSES as readonly string[]).includes(s);
}

interface SourceSpec {
  id: string;
  class: RateClass;
  /** Weight within its class (any positive scale; renormalised over the class). */
  weight: Dec;
}

export interface MethodologyParams {
  alpha: Dec;
  derivativeClassWeights: Record<DerivativeClass, Dec>;
  staleAfterMs: number;
  agreementToleranceBps: Dec;
  sources: readonly SourceSpec[];
}

/** One observation of a source: an annualised rate as a fraction (0.0421 = 4.21 %). */
export interface Reading {
  rate: Dec;
  observedAtMs: number;
}

type SourceStatus = "fresh" | "stale" | "missing";
type Fallback = "none" | "no_lending" | "no_derivatives";

interface SourceEvaluation {
  id: string;
  class: RateClass;
  weight: Dec;
  nominalWeight: Dec;
  reading: Reading | null;
  status: SourceStatus;
}

export interface IsfrComputation {
  version: string;
  rate: Dec;
  base: Dec | null;
  deriv: Dec | null;
  fallback: Fallback;
  components: Record<RateClass, Dec | null>;
  classWeightsEffective: Record<RateClass, Dec>;
  coverage: Dec;
  agreement: Dec;
  confidence: Dec;
  sources: SourceEvaluation[];
}

type IsfrOutcome =
  | { ok: true; value: IsfrComputation }
  | { ok: false; reason: string; sources: SourceEvaluation[] };

const ZERO = new D(0);
const ONE = new D(1);

function sum(values: Iterable<Dec>): Dec {
  let s = ZERO;
  for (const v of values) s = s.plus(v);
  return s;
}

function classRecord<T>(f: (c: RateClass) => T): Record<RateClass, T> {
  return { lending: f("lending"), structured: f("structured"), funding: f("funding"), staking: f("staking") };
}

/** Scale positive weights to sum to exactly 1 (the last one takes the rounding remainder). */
function normalise(weights: Record<RateClass, Dec>): Record<RateClass, Dec> {
  const total = sum(Object.values(weights));
  const out = classRecord(() => ZERO);
  if (total.lte(0)) return out;
  const positive = RATE_CLASSES.filter((c) => weights[c].gt(0));
  let assigned = ZERO;
  positive.forEach((c, i) => {
    out[c] = i === positive.length - 1 ? ONE.minus(assigned) : weights[c].div(total);
    assigned = assigned.plus(out[c]);
  });
  return out;
}

function nominalWeights(params: MethodologyParams): Map<string, Dec> {
  const classTotals = classRecord((c) =>
    sum(params.sources.filter((s) => s.class === c).map((s) => s.weight)),
  );
  const configuredDeriv = DERIVATIVE_CLASSES.filter((c) => classTotals[c].gt(0));
  const derivTotal = sum(configuredDeriv.map((c) => params.derivativeClassWeights[c]));
  const out = new Map<string, Dec>();
  for (const s of params.sources) {
    const within = classTotals[s.class].gt(0) ? s.weight.div(classTotals[s.class]) : ZERO;
    let classShare: Dec;
    if (s.class === "lending") classShare = ONE.minus(params.alpha);
    else
      classShare = derivTotal.gt(0)
        ? params.alpha.times(params.derivativeClassWeights[s.class]).div(derivTotal)
        : ZERO;
    out.set(s.id, classShare.times(within));
  }
  return out;
}

function meanAbsDeviation(entries: { value: Dec; weight: Dec }[], centre: Dec): Dec {
  const total = sum(entries.map((e) => e.weight));
  if (total.lte(0)) return ZERO;
  return sum(entries.map((e) => e.value.minus(centre).abs().times(e.weight))).div(total);
}

export function computeIsfr(
  params: MethodologyParams,
  readings: ReadonlyMap<string, Reading>,
  nowMs: number,
): IsfrOutcome {
  const nominal = nominalWeights(params);
  const sources: SourceEvaluation[] = params.sources.map((s) => {
    const r = readings.get(s.id);
    const usable = r?.rate.isFinite() === true;
    const status: SourceStatus = !usable
      ? "missing"
      : nowMs - r.observedAtMs <= params.staleAfterMs
        ? "fresh"
        : "stale";
    return {
      id: s.id,
      class: s.class,
      weight: s.weight,
      nominalWeight: nominal.get(s.id)!,
      reading: usable ? r : null,
      status,
    };
  });
  const fresh = sources.filter((s) => s.status === "fresh" && s.weight.gt(0));
  if (fresh.length === 0) return { ok: false, reason: "no fresh source data", sources };

  const freshIn = (c: RateClass) => fresh.filter((s) => s.class === c);
  const components = classRecord((c) =>
    weightedMedian(freshIn(c).map((s) => ({ value: s.reading!.rate, weight: s.weight }))),
  );
  const derivPresent = DERIVATIVE_CLASSES.filter((c) => components[c] !== null);

  let rate: Dec;
  const base: Dec | null = components.lending;
  let deriv: Dec | null = null;
  let fallback: Fallback;
  let effective: Record<RateClass, Dec>;
  if (base !== null && derivPresent.length > 0) {
    const derivWeights = classRecord((c) =>
      c !== "lending" && components[c] !== null ? params.derivativeClassWeights[c] : ZERO,
    );
    const derivShares = normalise(derivWeights);
    deriv = sum(derivPresent.map((c) => derivShares[c].times(components[c]!)));
    rate = base.plus(params.alpha.times(deriv.minus(base)));
    effective = normalise(
      classRecord((c) => (c === "lending" ? ONE.minus(params.alpha) : params.alpha.times(derivShares[c]))),
    );
    fallback = "none";
  } else if (base !== null) {
    rate = base;
    effective = normalise(classRecord((c) => (c === "lending" ? ONE : ZERO)));
    fallback = "no_derivatives";
  } else {
    rate = weightedMedian(fresh.map((s) => ({ value: s.reading!.rate, weight: s.nominalWeight })))!;
    effective = normalise(classRecord((c) => sum(freshIn(c).map((s) => s.nominalWeight))));
    fallback = "no_lending";
  }

  const configuredNominal = sum(nominal.values());
  const coverage = configuredNominal.gt(0)
    ? sum(fresh.map((s) => s.nominalWeight)).div(configuredNominal)
    : ZERO;
  const tau = params.agreementToleranceBps;
  const agreement = sum(
    RATE_CLASSES.filter((c) => components[c] !== null).map((c) => {
      const entries = freshIn(c).map((s) => ({ value: s.reading!.rate, weight: s.weight }));
      const madBps = meanAbsDeviation(entries, components[c]!).times(10_000);
      return effective[c].times(tau.div(tau.plus(madBps)));
    }),
  );
  const confidence = D.min(ONE, D.max(ZERO, coverage.times(agreement)));
  return {
    ok: true,
    value: {
      version: ISFR_VERSION,
      rate,
      base,
      deriv,
      fallback,
      components,
      classWeightsEffective: effective,
      coverage,
      agreement,
      confidence,
      sources,
    },
  };
}

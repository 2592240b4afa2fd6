import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { D, type Dec } from "../../../src/core/decimal.ts";
import { methodologyParams } from "../../../src/services/isfr/catalog.ts";
import {
  computeIsfr,
  type IsfrComputation,
  type MethodologyParams,
  RATE_CLASSES,
  type Reading,
} from "../../../src/services/isfr/methodology.ts";
import { weightedMedian } from "../../../src/services/isfr/weighted-median.ts";

const NOW = 1_750_000_000_000;
const HOUR = 3_600_000;
const params = methodologyParams({ staleAfterMs: 2 * HOUR });

function readings(rates: Record<string, string>, at = NOW): Map<string, Reading> {
  return new Map(Object.entries(rates).map(([id, r]) => [id, { rate: new D(r), observedAtMs: at }]));
}

function ok(p: MethodologyParams, r: Map<string, Reading>, now = NOW): IsfrComputation {
  const out = computeIsfr(p, r, now);
  if (!out.ok) throw new Error(out.reason);
  return out.value;
}

const w = (value: string, weight: string) => ({ value: new D(value), weight: new D(weight) });
const bps = (d: Dec | null) => (d === null ? null : d.times(10_000).toDecimalPlaces(4).toNumber());

describe("weighted median", () => {
  it("is the ordinary median with equal weights", () => {
    expect(weightedMedian([w("3", "1"), w("1", "1"), w("2", "1")])?.toString()).toBe("2");
    expect(weightedMedian([w("4", "1"), w("1", "1"), w("2", "1"), w("3", "1")])?.toString()).toBe("2.5");
  });

  it("equals the weighted mean for two sources (the public base-rate example)", () => {
    expect(weightedMedian([w("0.0197", "0.6"), w("0.0256", "0.4")])?.toString()).toBe("0.02206");
  });

  it("resists an outlier that a mean would follow", () => {
    const m = weightedMedian([w("0.02", "1"), w("0.021", "1"), w("5", "1")]);
    expect(m?.toString()).toBe("0.021");
  });

  it("stays between a dominant source and its neighbour, and is null without weight", () => {
    const m = weightedMedian([w("3", "0.5"), w("1", "9"), w("2", "0.5")])!;
    // Midpoints (×2 total): 1 at 9, 2 at 18.5; ½ of the total (10) lies 1/9.5 of the way to 2.
    expect(m.toString()).toBe(new D(1).plus(new D(1).div("9.5")).toString());
    expect(weightedMedian([w("7", "1")])?.toString()).toBe("7");
    expect(weightedMedian([w("1", "0")])).toBeNull();
    expect(weightedMedian([])).toBeNull();
  });

  it("stays within the range of its inputs (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: -5000, max: 5000 }), fc.integer({ min: 1, max: 100 })), {
          minLength: 1,
          maxLength: 12,
        }),
        (pairs) => {
          const m = weightedMedian(pairs.map(([v, wt]) => w(String(v), String(wt))))!;
          const values = pairs.map(([v]) => v);
          return m.gte(Math.min(...values)) && m.lte(Math.max(...values));
        },
      ),
    );
  });
});

describe("ISFR isfr-v1", () => {
  it("reproduces the public worked example: base 2.206 %, −86.9 bps spread → −21.725 bps premium", () => {
    const p = {
      ...params,
      sources: params.sources.filter((s) => s.class !== "staking" && s.class !== "funding"),
    };
    // R_deriv chosen so that R_deriv − R_base = −86.9 bps.
    const out = ok(
      p,
      readings({ "aave-v3-usdc": "0.0197", "compound-v3-usdc": "0.0256", "ethena-susde": "0.013370" }),
    );
    expect(bps(out.base)).toBe(220.6);
    expect(bps(out.deriv!.minus(out.base!))).toBe(-86.9);
    expect(bps(out.rate.minus(out.base!))).toBe(-21.725);
    expect(bps(out.rate)).toBe(198.875);
    expect(out.fallback).toBe("none");
    expect(out.classWeightsEffective.lending.toString()).toBe("0.75");
    expect(out.classWeightsEffective.structured.toString()).toBe("0.25");
  });

  it("combines all four classes with α = 0.25 and the class weights", () => {
    const out = ok(
      params,
      readings({
        "aave-v3-usdc": "0.04",
        "compound-v3-usdc": "0.04",
        "ethena-susde": "0.10",
        "hl-funding-btc": "0.08",
        "hl-funding-eth": "0.12",
        "lido-steth": "0.03",
      }),
    );
    // R_deriv = 0.4·10 % + 0.4·10 % + 0.2·3 % = 8.6 %; ISFR = 4 % + 0.25·4.6 % = 5.15 %.
    expect(bps(out.deriv)).toBe(860);
    expect(bps(out.rate)).toBe(515);
    expect(bps(out.components.funding)).toBe(1000);
    expect(out.classWeightsEffective).toEqual({
      lending: new D("0.75"),
      structured: new D("0.1"),
      funding: new D("0.1"),
      staking: new D("0.05"),
    });
    const viaWeights = RATE_CLASSES.reduce(
      (s, c) => s.plus(out.classWeightsEffective[c].times(out.components[c]!)),
      new D(0),
    );
    expect(viaWeights.toString()).toBe(out.rate.toString());
  });

  it("falls back to ISFR = R_base when no derivative source is fresh", () => {
    const out = ok(params, readings({ "aave-v3-usdc": "0.03", "compound-v3-usdc": "0.05" }));
    expect(out.fallback).toBe("no_derivatives");
    expect(bps(out.rate)).toBe(bps(out.base));
    expect(out.classWeightsEffective.lending.toString()).toBe("1");
    expect(out.components.funding).toBeNull();
  });

  it("falls back to a flat weighted median of all fresh sources when no lending source is fresh", () => {
    const out = ok(
      params,
      readings({
        "ethena-susde": "0.10",
        "hl-funding-btc": "0.20",
        "hl-funding-eth": "0.20",
        "lido-steth": "0.03",
      }),
    );
    expect(out.fallback).toBe("no_lending");
    expect(out.base).toBeNull();
    // Nominal weights: ethena 0.1, btc 0.05, eth 0.05, lido 0.05 → sorted 3 % (0.2), 10 % (0.4), 20 % (0.4).
    expect(out.classWeightsEffective.structured.toString()).toBe("0.4");
    expect(out.classWeightsEffective.funding.toString()).toBe("0.4");
    expect(out.classWeightsEffective.staking.toString()).toBe("0.2");
    expect(out.rate.gte("0.03") && out.rate.lte("0.20")).toBe(true);
    expect(out.coverage.toString()).toBe("0.25");
  });

  it("publishes nothing when no source is fresh, and treats old readings as stale", () => {
    const out = computeIsfr(params, readings({ "aave-v3-usdc": "0.03" }, NOW - 3 * HOUR), NOW);
    expect(out.ok).toBe(false);
    if (!out.ok) expect(out.sources.find((s) => s.id === "aave-v3-usdc")?.status).toBe("stale");
    expect(computeIsfr(params, new Map(), NOW).ok).toBe(false);
  });

  it("ignores a stale source but keeps the fresh one of the same class", () => {
    const r = readings({ "aave-v3-usdc": "0.03" });
    r.set("compound-v3-usdc", { rate: new D("0.09"), observedAtMs: NOW - 3 * HOUR });
    const out = ok(params, r);
    expect(bps(out.base)).toBe(300);
    expect(out.coverage.toString()).toBe("0.45");
  });

  it("confidence is 1 with every source fresh and in agreement, lower with gaps or dispersion", () => {
    const all = {
      "aave-v3-usdc": "0.04",
      "compound-v3-usdc": "0.04",
      "ethena-susde": "0.10",
      "hl-funding-btc": "0.10",
      "hl-funding-eth": "0.10",
      "lido-steth": "0.03",
    };
    expect(ok(params, readings(all)).confidence.toString()).toBe("1");
    const dispersed = ok(params, readings({ ...all, "compound-v3-usdc": "0.06" }));
    // Lending MAD = 0.6·|4−4.8| + 0.4·|6−4.8| = 96 bps → agreement_lending = 100/196.
    expect(dispersed.confidence.toDecimalPlaces(6).toString()).toBe(
      new D("0.25")
        .plus(new D("0.75").times(new D(100).div(196)))
        .toDecimalPlaces(6)
        .toString(),
    );
    const partial = ok(params, readings({ "aave-v3-usdc": "0.04", "compound-v3-usdc": "0.04" }));
    expect(partial.confidence.toString()).toBe("0.75");
  });

  it("effective weights sum to 1 and confidence stays in [0, 1] for any subset of fresh sources (property)", () => {
    const ids = params.sources.map((s) => s.id);
    fc.assert(
      fc.property(
        fc.subarray(ids, { minLength: 1 }),
        fc.array(fc.integer({ min: -20_000, max: 50_000 }), { minLength: ids.length, maxLength: ids.length }),
        fc.array(fc.integer({ min: 1, max: 1000 }), { minLength: 3, maxLength: 3 }),
        fc.integer({ min: 1, max: 99 }),
        (freshIds, rates, classWeights, alphaPct) => {
          const p: MethodologyParams = {
            ...params,
            alpha: new D(alphaPct).div(100),
            derivativeClassWeights: {
              structured: new D(classWeights[0]!),
              funding: new D(classWeights[1]!),
              staking: new D(classWeights[2]!),
            },
          };
          const r = new Map<string, Reading>(
            freshIds.map((id) => [
              id,
              { rate: new D(rates[ids.indexOf(id)]!).div(100_000), observedAtMs: NOW },
            ]),
          );
          const out = ok(p, r);
          const total = RATE_CLASSES.reduce((s, c) => s.plus(out.classWeightsEffective[c]), new D(0));
          const noDataHasNoWeight = RATE_CLASSES.every(
            (c) => out.components[c] !== null || out.classWeightsEffective[c].isZero(),
          );
          return total.eq(1) && noDataHasNoWeight && out.confidence.gte(0) && out.confidence.lte(1);
        },
      ),
    );
  });
});

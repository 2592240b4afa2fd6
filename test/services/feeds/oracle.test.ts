import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { D, type Dec, dec } from "../../../src/core/decimal.ts";
import {
  HOUR_MS,
  type IndexState,
  inception,
  pendingExcess,
  priceString,
  profile,
  publish,
  rawPrice,
  replay,
  settleHour,
} from "../../../src/services/feeds/oracle.ts";
import { FEEDS } from "../../../src/services/feeds/profiles.ts";

interface VectorStep {
  kind: "settle" | "nowcast";
  hour: number;
  rate?: string;
  elapsed_fraction?: string;
  predicted_rate?: string;
  raw: string;
  oracle_px: string;
  k_after?: string;
}
interface Vector {
  profile: { baseline: string; scale: string; leverage: string; beta: string; k0: string };
  example_normal: VectorStep[];
  example_clamped_spike: VectorStep[];
}

const vector = JSON.parse(
  readFileSync(new URL("../../fixtures/swp-oracle-btcswp.json", import.meta.url), "utf8"),
) as Vector;
const T0 = Date.UTC(2026, 0, 1);

/** Runs a vector example through the methodology, returning what each step produced. */
function runExample(steps: VectorStep[]) {
  const p = profile(vector.profile);
  let s: IndexState = inception(p, T0);
  let published: Dec = p.baseline;
  return steps.map((step) => {
    let raw: Dec;
    if (step.kind === "settle") {
      s = settleHour(p, s, T0 + step.hour * HOUR_MS, step.rate!);
      raw = rawPrice(p, s);
    } else {
      const now = T0 + (step.hour - 1) * HOUR_MS + dec(step.elapsed_fraction!).times(HOUR_MS).toNumber();
      raw = rawPrice(p, s, pendingExcess(s, step.predicted_rate!, now));
    }
    published = publish(published, raw);
    return { raw: priceString(raw), oracle_px: priceString(published), k_after: s.k.toFixed() };
  });
}

describe("SWP oracle: the BTCSWP vector", () => {
  it("deployed BTCSWP profile is the vector's profile", () => {
    const p = FEEDS.btcswp.profile;
    expect([p.baseline, p.scale, p.leverage, p.beta, p.k0].map((d) => d.toFixed())).toEqual([
      "75000",
      "1000000",
      "15",
      "0.080042",
      "0.0000029",
    ]);
  });

  for (const name of ["example_normal", "example_clamped_spike"] as const) {
    it(`reproduces ${name} exactly`, () => {
      const got = runExample(vector[name]);
      vector[name].forEach((step, i) => {
        expect(got[i]!.raw).toBe(step.raw);
        expect(got[i]!.oracle_px).toBe(step.oracle_px);
        if (step.k_after) expect(got[i]!.k_after).toBe(step.k_after);
      });
    });
  }
});

describe("SWP oracle: worked example by hand", () => {
  // B=100, S=100, L=1 (S·L = 100), β=0.5, K0=0.001.
  // h1 f=0.003: excess +0.002 → Σ 0.002 → P 100.2;  K = 0.5·0.001 + 0.5·0.003 = 0.002
  // h2 f=0.001: excess −0.001 → Σ 0.001 → P 100.1;  K = 0.5·0.002 + 0.5·0.001 = 0.0015
  // h3 f=0.002: excess +0.0005 → Σ 0.0015 → P 100.15; K = 0.5·0.0015 + 0.5·0.002 = 0.00175
  // h4, 15 min in, predicted 0.00375: pending 0.25·(0.00375 − 0.00175) = 0.0005 → P 100.2
  const p = profile({ baseline: "100", scale: "100", leverage: "1", beta: "0.5", k0: "0.001" });

  it("three settled hours and a nowcast", () => {
    let s = inception(p, T0);
    let pub = p.baseline;
    const seen: string[] = [];
    const ks: string[] = [];
    ["0.003", "0.001", "0.002"].forEach((rate, i) => {
      s = settleHour(p, s, T0 + (i + 1) * HOUR_MS, rate);
      pub = publish(pub, rawPrice(p, s));
      seen.push(priceString(pub));
      ks.push(s.k.toFixed());
    });
    expect(seen).toEqual(["100.200000", "100.100000", "100.150000"]);
    expect(ks).toEqual(["0.002", "0.0015", "0.00175"]);
    const now = T0 + 3 * HOUR_MS + HOUR_MS / 4;
    expect(priceString(publish(pub, rawPrice(p, s, pendingExcess(s, "0.00375", now))))).toBe("100.200000");
  });

  it("rates are hourly fractions taken as given (no 8-hour conversion)", () => {
    const s = settleHour(p, inception(p, T0), T0 + HOUR_MS, "0.0000125");
    expect(s.cumulative.toFixed()).toBe("-0.0009875");
  });
});

const rateArb = fc.integer({ min: -500_000, max: 500_000 }).map((n) => new D(n).div(1e9));

describe("SWP oracle: properties", () => {
  const p = FEEDS.btcswp.profile;

  it("nowcast at the end of the hour equals the true-up when the prediction was right", () => {
    fc.assert(
      fc.property(fc.array(rateArb, { maxLength: 20 }), rateArb, (hist, pred) => {
        const s = replay(
          p,
          T0,
          hist.map((rate, i) => ({ hourEndMs: T0 + (i + 1) * HOUR_MS, rate })),
        );
        const end = s.settledThroughMs + HOUR_MS;
        const nowcast = rawPrice(p, s, pendingExcess(s, pred, end));
        const trued = rawPrice(p, settleHour(p, s, end, pred));
        expect(nowcast.eq(trued)).toBe(true);
      }),
    );
  });

  it("true-up moves the raw price by exactly S·L·(realized − predicted)", () => {
    fc.assert(
      fc.property(rateArb, rateArb, (pred, realized) => {
        const s = inception(p, T0);
        const before = rawPrice(p, s, pendingExcess(s, pred, T0 + HOUR_MS));
        const after = rawPrice(p, settleHour(p, s, T0 + HOUR_MS, realized));
        expect(after.minus(before).eq(p.scale.times(p.leverage).times(realized.minus(pred)))).toBe(true);
      }),
    );
  });

  it("the nowcast grows linearly with the elapsed part of the hour", () => {
    const s = inception(p, T0);
    const at = (ms: number) => rawPrice(p, s, pendingExcess(s, "0.0000229", T0 + ms));
    expect(at(0).eq(p.baseline)).toBe(true);
    const q = at(HOUR_MS / 4).minus(p.baseline);
    expect(
      at(HOUR_MS / 2)
        .minus(p.baseline)
        .eq(q.times(2)),
    ).toBe(true);
    expect(at(HOUR_MS).minus(p.baseline).eq(q.times(4))).toBe(true);
  });

  it("K follows (1−β)·K + β·f, i.e. K_n = (1−β)^n·K0 + β·Σ (1−β)^(n−i)·f_i", () => {
    fc.assert(
      fc.property(fc.array(rateArb, { minLength: 1, maxLength: 12 }), (rates) => {
        const s = replay(
          p,
          T0,
          rates.map((rate, i) => ({ hourEndMs: T0 + (i + 1) * HOUR_MS, rate })),
        );
        const keep = new D(1).minus(p.beta);
        const n = rates.length;
        let closed = keep.pow(n).times(p.k0);
        rates.forEach((f, i) => {
          closed = closed.plus(p.beta.times(keep.pow(n - 1 - i)).times(f));
        });
        expect(s.k.minus(closed).abs().lt("1e-30")).toBe(true);
      }),
    );
  });

  it("publication never moves more than 1% and always has 6 decimals", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000_000 }),
        fc.integer({ min: -1_000_000_000, max: 1_000_000_000 }),
        (prevCents, rawMicro) => {
          const prev = new D(prevCents).div(100);
          const out = publish(prev, new D(rawMicro).div(1e6));
          expect(out.minus(prev).abs().lte(prev.times("0.01").plus("0.0000005"))).toBe(true);
          expect(out.decimalPlaces()).toBeLessThanOrEqual(6);
        },
      ),
    );
  });
});

describe("SWP oracle: clamp and quantization", () => {
  it("clamps each published move to ±1% of the previous published price", () => {
    expect(priceString(publish("100", "102"))).toBe("101.000000");
    expect(priceString(publish("100", "98"))).toBe("99.000000");
    expect(priceString(publish("100", "100.5"))).toBe("100.500000");
  });

  it("quantizes half-even to 6 decimals", () => {
    expect(priceString(publish("100", "100.0000005"))).toBe("100.000000");
    expect(priceString(publish("100", "100.0000015"))).toBe("100.000002");
    expect(priceString(publish("100", "100.00000050001"))).toBe("100.000001");
  });

  it("the raw index is never clamped: a spike keeps catching up on later publications", () => {
    let pub = dec("100");
    const seen: string[] = [];
    for (let i = 0; i < 3; i++) {
      pub = publish(pub, "103");
      seen.push(priceString(pub));
    }
    expect(seen).toEqual(["101.000000", "102.010000", "103.000000"]);
  });
});

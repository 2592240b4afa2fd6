import { D, type Dec, num } from "../../core/decimal.ts";
import { RATE_CLASSES, type RateClass } from "./methodology.ts";
import type { Candle } from "./ohlc.ts";
import type { Snapshot } from "./snapshot-store.ts";

/** JSON shapes of the ISFR API, derived from stored snapshots (decimal strings → JSON numbers). */

/** ISO 8601 with an explicit offset (UTC written as +00:00). */
export function isoWithOffset(ms: number): string {
  return new Date(ms).toISOString().replace("Z", "+00:00");
}

/** A fraction as basis points, rounded to 2 decimals. */
export const bps = (fraction: string | Dec): number => num(new D(fraction).times(10_000), 2);
export const optBps = (fraction: string | null): number | null => (fraction === null ? null : bps(fraction));

function formatRate(fraction: string | Dec): string {
  return `${new D(fraction).times(100).toFixed(2, D.ROUND_HALF_UP)}%`;
}

interface CurrentObject {
  isfr_bps: number;
  rate: number;
  rate_formatted: string;
  components: Record<RateClass, number | null>;
  confidence: number;
  class_weights_effective: Record<RateClass, number>;
  timestamp: string;
  version: string;
  detail: {
    r_base_bps: number | null;
    r_deriv_bps: number | null;
    spread_bps: number | null;
    risk_premium_bps: number;
    alpha: number;
    fallback: string;
    coverage: number;
    agreement: number;
  };
}

/** The contract's current object (plus `detail`: how it was built). `s.rate` must be non-null. */
export function currentObject(s: Snapshot, alpha: string): CurrentObject {
  const rate = new D(s.rate!);
  const spread = s.base !== null && s.deriv !== null ? new D(s.deriv).minus(s.base) : null;
  const premium = s.base !== null ? rate.minus(s.base) : new D(0);
  return {
    isfr_bps: bps(rate),
    rate: num(rate, 6),
    rate_formatted: formatRate(rate),
    components: Object.fromEntries(RATE_CLASSES.map((c) => [c, optBps(s.components[c])])) as Record<
      RateClass,
      number | null
    >,
    confidence: num(s.confidence, 4),
    class_weights_effective: Object.fromEntries(RATE_CLASSES.map((c) => [c, num(s.weights[c])])) as Record<
      RateClass,
      number
    >,
    timestamp: isoWithOffset(s.tMs),
    version: s.version,
    detail: {
      r_base_bps: optBps(s.base),
      r_deriv_bps: optBps(s.deriv),
      spread_bps: spread === null ? null : bps(spread),
      risk_premium_bps: bps(premium),
      alpha: num(alpha),
      fallback: s.fallback ?? "none",
      coverage: num(s.coverage, 4),
      agreement: num(s.agreement, 4),
    },
  };
}

export function historyPoint(s: Snapshot) {
  return {
    timestamp: isoWithOffset(s.tMs),
    isfr_bps: bps(s.rate!),
    rate: num(s.rate!, 6),
    confidence: num(s.confidence, 4),
    components: Object.fromEntries(RATE_CLASSES.map((c) => [c, optBps(s.components[c])])),
  };
}

export function sourceView(src: Snapshot["sources"][number], lastError: string | null) {
  return {
    id: src.id,
    class: src.class,
    weight: num(src.weight),
    index_weight: num(src.nominalWeight, 6),
    last_value_bps: optBps(src.rate),
    last_rate: src.rate === null ? null : num(src.rate, 6),
    last_update: src.observedAtMs === null ? null : isoWithOffset(src.observedAtMs),
    status: src.status,
    error: lastError,
  };
}

export function candleView(c: Candle) {
  return {
    time: Math.floor(c.startMs / 1000),
    timestamp: isoWithOffset(c.startMs),
    open: num(c.open, 2),
    high: num(c.high, 2),
    low: num(c.low, 2),
    close: num(c.close, 2),
    count: c.count,
  };
}

/**
 * Seeded pseudo-random numbers for the market model (mulberry32). Every random draw in the sim
 * world comes from one of these, so the same seed replays the same market.
 */
export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Standard normal (Box–Muller). */
  normal(): number;
  /** True with probability p. */
  chance(p: number): boolean;
  /** Integer in [lo, hi]. */
  int(lo: number, hi: number): number;
}

/** Where a stream stands: the generator's state and the normal it has in hand. */
export interface RngState {
  state: number;
  spare: number | undefined;
}

export function createRng(seed: number): Rng & { save(): RngState } {
  return rngFrom({ state: seed >>> 0, spare: undefined });
}

/** A stream that continues exactly where `from` was saved. */
export function rngFrom(from: RngState): Rng & { save(): RngState } {
  let state = from.state;
  let spare = from.spare;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    normal() {
      if (spare !== undefined) {
        const s = spare;
        spare = undefined;
        return s;
      }
      let u = next();
      while (u === 0) u = next();
      const v = next();
      const r = Math.sqrt(-2 * Math.log(u));
      spare = r * Math.sin(2 * Math.PI * v);
      return r * Math.cos(2 * Math.PI * v);
    },
    chance(p) {
      return next() < p;
    },
    int(lo, hi) {
      return lo + Math.floor(next() * (hi - lo + 1));
    },
    save() {
      return { state, spare };
    },
  };
}

/** A child seed derived from a parent seed and a label, so streams stay independent and stable. */
export function deriveSeed(seed: number, label: string): number {
  let h = (seed ^ 0x9e3779b9) >>> 0;
  for (let i = 0; i < label.length; i++) {
    h = Math.imul(h ^ label.charCodeAt(i), 0x01000193) >>> 0;
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  return h >>> 0;
}

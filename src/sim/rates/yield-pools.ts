import { createRng, deriveSeed } from "../model/prng.ts";

/**
 * The sim world's stand-in for the public DeFi yields API (`GET /yields/pools`): a few reference
 * pools whose APYs drift slowly and deterministically with (seed, sim time), at realistic levels.
 */
interface YieldPool {
  pool: string;
  chain: string;
  project: string;
  symbol: string;
  tvlUsd: number;
  apy: number;
  apyBase: number;
  apyReward: number | null;
  stablecoin: boolean;
  ilRisk: "no" | "yes";
  exposure: "single" | "multi";
  poolMeta: string | null;
}

interface YieldPoolsResponse {
  status: "success";
  data: YieldPool[];
}

interface PoolSpec {
  pool: string;
  project: string;
  symbol: string;
  stablecoin: boolean;
  tvlUsd: number;
  /** Mean APY in percent and how far it swings either way. */
  mean: number;
  swing: number;
  floor: number;
  ceiling: number;
  /** Share of the APY paid as rewards. */
  rewardShare: number;
}

const POOLS: readonly PoolSpec[] = [
  {
    pool: "sim-aave-v3-usdc-ethereum",
    project: "aave-v3",
    symbol: "USDC",
    stablecoin: true,
    tvlUsd: 3.4e9,
    mean: 4.1,
    swing: 1.6,
    floor: 2,
    ceiling: 6,
    rewardShare: 0,
  },
  {
    pool: "sim-compound-v3-usdc-ethereum",
    project: "compound-v3",
    symbol: "USDC",
    stablecoin: true,
    tvlUsd: 6.1e8,
    mean: 4.4,
    swing: 1.4,
    floor: 2,
    ceiling: 6,
    rewardShare: 0.08,
  },
  {
    pool: "sim-ethena-susde-ethereum",
    project: "ethena-usde",
    symbol: "SUSDE",
    stablecoin: true,
    tvlUsd: 4.8e9,
    mean: 9,
    swing: 5,
    floor: 4,
    ceiling: 15,
    rewardShare: 0,
  },
  {
    pool: "sim-lido-steth-ethereum",
    project: "lido",
    symbol: "STETH",
    stablecoin: false,
    tvlUsd: 2.3e10,
    mean: 3,
    swing: 0.35,
    floor: 2.4,
    ceiling: 3.6,
    rewardShare: 0,
  },
];

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Smooth seeded noise in [-1, 1]: random knots every `period` ms, cosine-interpolated between them. */
function smoothNoise(seed: number, t: number, period: number): number {
  const k = Math.floor(t / period);
  const knot = (i: number) => createRng(deriveSeed(seed, String(i))).next() * 2 - 1;
  const a = knot(k);
  const b = knot(k + 1);
  const f = (1 - Math.cos(Math.PI * ((t - k * period) / period))) / 2;
  return a + (b - a) * f;
}

/** APY (percent, 4 decimals) of one pool at sim time `nowMs`. */
function apyAt(spec: PoolSpec, seed: number, nowMs: number): number {
  const s = deriveSeed(seed, spec.pool);
  // A slow weekly swell, a daily wobble and a little hourly texture.
  const x =
    0.67 * smoothNoise(s, nowMs, 7 * DAY) +
    0.315 * smoothNoise(s ^ 0x5bd1e995, nowMs, DAY) +
    0.015 * smoothNoise(s ^ 0x27d4eb2f, nowMs, HOUR);
  const apy = Math.min(spec.ceiling, Math.max(spec.floor, spec.mean + spec.swing * x));
  return Math.round(apy * 1e4) / 1e4;
}

export function yieldPools(seed: number, nowMs: number): YieldPoolsResponse {
  return {
    status: "success",
    data: POOLS.map((spec) => {
      const apy = apyAt(spec, seed, nowMs);
      const apyReward = spec.rewardShare > 0 ? Math.round(apy * spec.rewardShare * 1e4) / 1e4 : null;
      const apyBase = Math.round((apy - (apyReward ?? 0)) * 1e4) / 1e4;
      const tvlDrift = 1 + 0.05 * smoothNoise(deriveSeed(seed, `${spec.pool}:tvl`), nowMs, 3 * DAY);
      return {
        pool: spec.pool,
        chain: "Ethereum",
        project: spec.project,
        symbol: spec.symbol,
        tvlUsd: Math.round(spec.tvlUsd * tvlDrift),
        apy,
        apyBase,
        apyReward,
        stablecoin: spec.stablecoin,
        ilRisk: "no",
        exposure: "single",
        poolMeta: null,
      };
    }),
  };
}

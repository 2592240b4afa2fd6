import { D } from "../../core/decimal.ts";
import type { DerivativeClass, MethodologyParams, RateClass } from "./methodology.ts";

/** Where a source's rate comes from: a pool of the DeFi yields API, or a Hyperliquid perp's funding. */
type SourceOrigin =
  | { kind: "yields"; project: string; symbol: string; chain: string }
  | { kind: "funding"; coin: string };

export interface CatalogEntry {
  id: string;
  class: RateClass;
  weight: string;
  origin: SourceOrigin;
  description: string;
}

/**
 * The isfr-v1 sources and their weights within their class. Lending weights follow the public
 * methodology's liquidity split (Aave 60 / Compound 40); BTC and ETH funding count equally.
 */
export const DEFAULT_CATALOG: readonly CatalogEntry[] = [
  {
    id: "aave-v3-usdc",
    class: "lending",
    weight: "0.6",
    origin: { kind: "yields", project: "aave-v3", symbol: "USDC", chain: "Ethereum" },
    description: "Aave V3 USDC supply APY (Ethereum)",
  },
  {
    id: "compound-v3-usdc",
    class: "lending",
    weight: "0.4",
    origin: { kind: "yields", project: "compound-v3", symbol: "USDC", chain: "Ethereum" },
    description: "Compound V3 USDC supply APY (Ethereum)",
  },
  {
    id: "ethena-susde",
    class: "structured",
    weight: "1",
    origin: { kind: "yields", project: "ethena-usde", symbol: "SUSDE", chain: "Ethereum" },
    description: "Ethena sUSDe staking yield",
  },
  {
    id: "hl-funding-btc",
    class: "funding",
    weight: "0.5",
    origin: { kind: "funding", coin: "BTC" },
    description: "Hyperliquid BTC perp funding, hourly rate × 8760",
  },
  {
    id: "hl-funding-eth",
    class: "funding",
    weight: "0.5",
    origin: { kind: "funding", coin: "ETH" },
    description: "Hyperliquid ETH perp funding, hourly rate × 8760",
  },
  {
    id: "lido-steth",
    class: "staking",
    weight: "1",
    origin: { kind: "yields", project: "lido", symbol: "STETH", chain: "Ethereum" },
    description: "Lido stETH staking APR",
  },
];

/** Weights of the derivative classes inside R_deriv: basis and funding lead, staking is the slow anchor. */
export const DEFAULT_DERIVATIVE_CLASS_WEIGHTS: Record<DerivativeClass, string> = {
  structured: "0.4",
  funding: "0.4",
  staking: "0.2",
};

export const DEFAULT_ALPHA = "0.25";
const DEFAULT_AGREEMENT_TOLERANCE_BPS = "100";

export function methodologyParams(opts: {
  catalog?: readonly CatalogEntry[];
  staleAfterMs: number;
  alpha?: string;
  derivativeClassWeights?: Record<DerivativeClass, string>;
}): MethodologyParams {
  const cw = opts.derivativeClassWeights ?? DEFAULT_DERIVATIVE_CLASS_WEIGHTS;
  return {
    alpha: new D(opts.alpha ?? DEFAULT_ALPHA),
    derivativeClassWeights: {
      structured: new D(cw.structured),
      funding: new D(cw.funding),
      staking: new D(cw.staking),
    },
    staleAfterMs: opts.staleAfterMs,
    agreementToleranceBps: new D(DEFAULT_AGREEMENT_TOLERANCE_BPS),
    sources: (opts.catalog ?? DEFAULT_CATALOG).map((e) => ({
      id: e.id,
      class: e.class,
      weight: new D(e.weight),
    })),
  };
}

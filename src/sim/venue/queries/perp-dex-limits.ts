import { D } from "../../../core/decimal.ts";
import type { InfoHandler } from "./context.ts";
import { dexIndexOf } from "./context.ts";

/** The sim's own HIP-3 deployment limits (per-coin caps come from perpDexs). */
const OI_SZ_CAP_PER_PERP = "1000000000";
const MAX_TRANSFER_NTL = "100000000";

type PerpDex = { name: string; assetToStreamingOiCap: [string, string][] } | null;

/**
 * perpDexLimits {dex}: a HIP-3 dex's open-interest caps; `null` for the main dex, which has none
 * of these deployer limits.
 */
export const perpDexLimits: InfoHandler = (c, r) => {
  const di = dexIndexOf(c, r.dex);
  if (di === 0) return null;
  const dexes = c.ask({ type: "perpDexs" }) as PerpDex[];
  const caps = dexes[di]?.assetToStreamingOiCap ?? [];
  const total = caps.reduce((sum, [, cap]) => sum.plus(cap), new D(0));
  return {
    totalOiCap: total.toFixed(),
    oiSzCapPerPerp: OI_SZ_CAP_PER_PERP,
    maxTransferNtl: MAX_TRANSFER_NTL,
    coinToOiCap: caps.map(([coin, cap]) => [coin, cap]),
  };
};

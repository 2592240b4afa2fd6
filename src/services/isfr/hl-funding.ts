import type { HlInfo } from "../../exchange/index.ts";
import type { FundingPort } from "./funding-source.ts";

/**
 * Funding of the main perp dex from the exchange client: the shared asset contexts
 * (`metaAndAssetCtxs`, read once per period by the whole process) → coin → hourly `funding`.
 */
export function hlFundingPort(client: Pick<HlInfo, "assetContexts">): FundingPort {
  return {
    async hourlyFunding() {
      const [meta, ctxs] = await client.assetContexts();
      const out = new Map<string, string>();
      meta.universe.forEach((asset, i) => {
        const funding = ctxs[i]?.funding;
        if (typeof funding === "string") out.set(asset.name, funding);
      });
      return out;
    },
  };
}

import type { HlClient } from "../exchange/client.ts";
import { readDexMarginPlan } from "../exchange/dex-margin.ts";
import type { Market } from "../exchange/symbols.ts";
import { defaultLeverage } from "../sim/venue/order-rules.ts";
import type { PaperOptions } from "./paper-gateway.ts";

/**
 * The paper account a dry run margins its orders with, so that it refuses what the exchange would:
 * the wallet's real account on the network (the value of the balance that margins the market, the
 * margin its own positions and orders already hold there, and its leverage setting on the market);
 * with no wallet, a new account's (the sim world's starting balance at the exchange's default
 * leverage). Positions are margined isolated where the account's setting on the market is isolated
 * or the market allows nothing else, cross otherwise. A HIP-3 market is margined as a live run
 * would margin it (`dex-margin.ts`): from the main perp balance under dex abstraction, or when the
 * mode was never set and the dex holds nothing (a live run turns dex abstraction on before its first
 * order); else from what was moved to that dex.
 */
export async function dryRunPaperOptions(client: HlClient, market: Market): Promise<PaperOptions> {
  if (!client.address)
    return { leverage: defaultLeverage(market.maxLeverage), isolated: market.onlyIsolated };
  const plan = await readDexMarginPlan(client, market.dex);
  const onMainBalance = plan !== "dex";
  const [state, asset] = await Promise.all([
    client.clearinghouseState(onMainBalance ? {} : { dex: market.dex }),
    client.activeAssetData({ instrument: market.instrument }),
  ]);
  return {
    balanceUsd: state.marginSummary.accountValue,
    reservedUsd: state.marginSummary.totalMarginUsed,
    leverage: asset.leverage.value,
    // Margined as the exchange margins the account's positions there (a market may allow only isolated).
    isolated: asset.leverage.type === "isolated" || market.onlyIsolated,
  };
}

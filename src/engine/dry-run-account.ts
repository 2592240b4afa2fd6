import type { HlClient } from "../exchange/client.ts";
import type { Market } from "../exchange/symbols.ts";
import { defaultLeverage } from "../sim/venue/order-rules.ts";
import type { PaperOptions } from "./paper-gateway.ts";

/**
 * The paper account a dry run margins its orders with, so that it refuses what the exchange would:
 * the wallet's real account on the network (its value on the market's dex, the margin its own
 * positions and orders already hold, and its leverage setting on the market); with no wallet, a new
 * account's (the sim world's starting balance at the exchange's default leverage).
 */
export async function dryRunPaperOptions(client: HlClient, market: Market): Promise<PaperOptions> {
  if (!client.address) return { leverage: defaultLeverage(market.maxLeverage) };
  const [state, asset] = await Promise.all([
    client.clearinghouseState(market.dex ? { dex: market.dex } : {}),
    client.activeAssetData({ instrument: market.instrument }),
  ]);
  return {
    balanceUsd: state.marginSummary.accountValue,
    reservedUsd: state.marginSummary.totalMarginUsed,
    leverage: asset.leverage.value,
  };
}

import { D, dec, wire } from "../core/decimal.ts";
import type { HlClient } from "../exchange/client.ts";
import { readDexMarginPlan } from "../exchange/dex-margin.ts";
import type { Market } from "../exchange/symbols.ts";
import { BASE_TIER, type FillFeeRates, fillFeeRates, type UserFeeRates } from "../sim/venue/fee-rates.ts";
import { defaultLeverage } from "../sim/venue/order-rules.ts";
import type { PaperOptions } from "./paper-gateway.ts";

/**
 * The paper account a dry run margins its orders with, so that it refuses what the exchange would:
 * the wallet's real account on the network (the value of the balance that margins the market, the
 * margin its own positions and orders already hold there, and its leverage setting on the market:
 * from its position there when it holds one, else read on its own);
 * with no wallet, a new account's (the sim world's starting balance at the exchange's default
 * leverage). Positions are margined isolated where the account's setting on the market is isolated
 * or the market allows nothing else, cross otherwise. A HIP-3 market is margined as a live run
 * would margin it (`dex-margin.ts`): from the main perp balance under dex abstraction, or when the
 * mode was never set and the dex holds nothing (a live run turns dex abstraction on before its first
 * order); else from what was moved to that dex.
 * Its fills cost what the account's would live (`userFees`, read once, beside the account's state:
 * its tier, staking and referral discounts, on the market's dex); should that read fail, a new
 * account's, said in one `log` line. Where the client carries a builder code (the session attached
 * the configured builder, as for a live run, because the account approved it), every fill also pays
 * the builder's fee, and the referral discount is off: a builder code overrides it.
 */
export async function dryRunPaperOptions(
  client: HlClient,
  market: Market,
  log: (line: string) => void = () => undefined,
): Promise<PaperOptions> {
  if (!client.address)
    return {
      leverage: defaultLeverage(market.maxLeverage),
      isolated: market.onlyIsolated,
      fees: marketFees(BASE_TIER, market),
    };
  const builder = client.builder;
  const plan = await readDexMarginPlan(client, market.dex);
  const onMainBalance = plan !== "dex";
  const [state, fees] = await Promise.all([
    client.clearinghouseState(onMainBalance ? {} : { dex: market.dex }),
    // An answer that is not rates (a decimal that does not parse) falls back as a failed read does.
    client
      .userFees()
      .then((answer) => marketFees(builder ? { ...answer, activeReferralDiscount: "0" } : answer, market))
      .catch((e: unknown) => {
        const fallback = marketFees(BASE_TIER, market);
        log(
          `could not read the account's fees (userFees: ${e instanceof Error ? e.message : String(e)}); the dry run charges a new account's: taker ${fallback.taker}, maker ${fallback.maker} of notional`,
        );
        return fallback;
      }),
  ]);
  // A position on the market carries the account's setting there (the exchange changes both at
  // once); without one, it is read on its own (activeAssetData, weight 20).
  const held = state.assetPositions.find(
    (a) => a.position.coin === market.coin && !dec(a.position.szi).isZero(),
  );
  const leverage =
    held?.position.leverage ?? (await client.activeAssetData({ instrument: market.instrument })).leverage;
  return {
    balanceUsd: state.marginSummary.accountValue,
    reservedUsd: state.marginSummary.totalMarginUsed,
    leverage: leverage.value,
    // Margined as the exchange margins the account's positions there (a market may allow only isolated).
    isolated: leverage.type === "isolated" || market.onlyIsolated,
    fees,
    ...(builder ? { builderFeeRate: builderRate(builder.feeTenthsBps) } : {}),
  };
}

/** A builder fee in tenths of a basis point as a fraction of notional (10 → 0.0001). */
function builderRate(feeTenthsBps: number): string {
  return wire(new D(feeTenthsBps).div(100_000));
}

/** The account's rates on this market (a HIP-3 dex's fee scale and growth mode applied). */
function marketFees(account: UserFeeRates, market: Market): FillFeeRates {
  return fillFeeRates(account, {
    ...(market.deployerFeeScale !== undefined ? { deployerFeeScale: market.deployerFeeScale } : {}),
    ...(market.growthMode ? { growthMode: true } : {}),
  });
}

/** /info request types answered outside info.ts, one small module each. */
import {
  leadingVaults,
  liquidatable,
  outcomeMeta,
  subAccounts,
  twapHistory,
  userToMultiSigSigners,
  userTwapSliceFills,
  userTwapSliceFillsByTime,
  userVaultEquities,
  vaultDetails,
  vaultSummaries,
} from "./absent-features.ts";
import { allPerpMetas } from "./all-perp-metas.ts";
import type { InfoHandler } from "./context.ts";
import { exchangeStatus } from "./exchange-status.ts";
import { marginTable } from "./margin-table.ts";
import { maxMarketOrderNtls } from "./max-market-order-ntls.ts";
import { perpDexLimits } from "./perp-dex-limits.ts";
import { perpDexStatus } from "./perp-dex-status.ts";
import { perpsAtOpenInterestCap } from "./perps-at-oi-cap.ts";
import { portfolio } from "./portfolio.ts";
import { delegations, delegatorHistory, delegatorRewards, delegatorSummary } from "./staking.ts";
import { userAbstraction, userDexAbstraction } from "./user-abstraction.ts";
import { userFees } from "./user-fees.ts";
import { webData2 } from "./web-data2.ts";

export const moreInfoHandlers: Record<string, InfoHandler> = {
  portfolio,
  webData2,
  exchangeStatus,
  marginTable,
  perpDexLimits,
  perpDexStatus,
  maxMarketOrderNtls,
  perpsAtOpenInterestCap,
  allPerpMetas,
  subAccounts,
  subAccounts2: subAccounts,
  twapHistory,
  userTwapSliceFills,
  userTwapSliceFillsByTime,
  userVaultEquities,
  leadingVaults,
  vaultDetails,
  vaultSummaries,
  userToMultiSigSigners,
  liquidatable,
  outcomeMeta,
  delegations,
  delegatorSummary,
  delegatorHistory,
  delegatorRewards,
  userFees,
  userAbstraction,
  userDexAbstraction,
};

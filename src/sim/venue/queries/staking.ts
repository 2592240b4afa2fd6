/**
 * HYPE staking as the exchange reports it for an account that never staked: the sim has no staking,
 * validators or rewards. Zeros are spelled "0.0", as the exchange spells them.
 */
import type { InfoHandler } from "./context.ts";
import { userAccount } from "./context.ts";

export const delegations: InfoHandler = (c, r) => {
  userAccount(c, r.user);
  return [];
};

export const delegatorSummary: InfoHandler = (c, r) => {
  userAccount(c, r.user);
  return { delegated: "0.0", undelegated: "0.0", totalPendingWithdrawal: "0.0", nPendingWithdrawals: 0 };
};

export const delegatorHistory: InfoHandler = (c, r) => {
  userAccount(c, r.user);
  return [];
};

export const delegatorRewards: InfoHandler = (c, r) => {
  userAccount(c, r.user);
  return [];
};

/**
 * Requests about features the sim world does not offer (sub-accounts, TWAP orders, vaults): answered
 * as the exchange answers for a user who has none of them.
 */
import type { InfoHandler } from "./context.ts";
import { userAccount } from "./context.ts";

export const subAccounts: InfoHandler = (c, r) => {
  userAccount(c, r.user);
  return null;
};

export const twapHistory: InfoHandler = (c, r) => {
  userAccount(c, r.user);
  return [];
};

export const userVaultEquities: InfoHandler = (c, r) => {
  userAccount(c, r.user);
  return [];
};

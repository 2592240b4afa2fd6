import type { InfoHandler } from "./context.ts";
import { userAccount } from "./context.ts";

/**
 * userAbstraction {user}: the account's mode — "default" for a new account (never set; standard:
 * each perp dex keeps its own USDC), "disabled" (standard, set), or "dexAbstraction".
 */
export const userAbstraction: InfoHandler = (c, r) => userAccount(c, r.user).abstraction;

/**
 * userDexAbstraction {user}: whether HIP-3 dexes draw on the main perp balance; null while the mode
 * was never set.
 */
export const userDexAbstraction: InfoHandler = (c, r) => {
  const mode = userAccount(c, r.user).abstraction;
  return mode === "default" ? null : mode === "dexAbstraction";
};

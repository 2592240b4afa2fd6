import type { InfoHandler } from "./context.ts";
import { userAccount } from "./context.ts";

/**
 * userAbstraction {user}: the sim keeps one USDC balance that margins the main dex and every HIP-3
 * dex, which is what Hyperliquid calls dex abstraction.
 */
export const userAbstraction: InfoHandler = (c, r) => {
  userAccount(c, r.user);
  return "dexAbstraction";
};

/** userDexAbstraction {user}: whether HIP-3 dexes draw on the main balance; in the sim they always do. */
export const userDexAbstraction: InfoHandler = (c, r) => {
  userAccount(c, r.user);
  return true;
};

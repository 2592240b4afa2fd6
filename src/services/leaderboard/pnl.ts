import { D, type Dec } from "../../core/decimal.ts";

/**
 * An agent's PnL as the leaderboard ranks it: its account value now minus its account value at
 * registration (both summed over the main dex and HIP-3 dexes). The agent's dashboard shows the
 * same figure through this function, so the two agree to the cent.
 */
export function accountPnl(accountValue: string, initialAccountValue: string): Dec {
  return new D(accountValue).minus(initialAccountValue);
}

/** Rounded to cents, half to even (as Python's round(x, 2) on the predecessor's board). */
export function cents(d: Dec): number {
  return Number(d.toFixed(2));
}

import { createRequire } from "node:module";

type ViemAccounts = typeof import("viem/accounts");

const require = createRequire(import.meta.url);
let loaded: ViemAccounts | undefined;

/**
 * viem's account helpers, loaded on first use: a process that never signs nor derives an address
 * (the agent service, a price feed) does not pay for viem.
 */
export function viemAccounts(): ViemAccounts {
  loaded ??= require("viem/accounts") as ViemAccounts;
  return loaded;
}

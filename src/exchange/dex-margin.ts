/**
 * What margins an account's orders on a perp dex, and what a run must do before its first order on a
 * HIP-3 dex. A new Hyperliquid account is in standard mode: each HIP-3 dex margins its positions with
 * its own USDC, so an order there is refused for margin until USDC is moved to the dex (sendAsset,
 * `hl dex send`) or dex abstraction is on (the dex then draws on the main perp balance; `hl dex
 * abstraction on`). `agentEnableDexAbstraction`
 * turns it on only for an account whose mode was never set — the exchange's way for an API wallet to
 * prepare its account for HIP-3 — so a run does exactly that, and nothing else: it never changes a
 * mode the user set, and never moves the user's money.
 */

import { dec } from "../core/decimal.ts";
import { UserError } from "../core/errors.ts";
import type { HlClient } from "./client.ts";

/** `main`: the main perp balance margins the dex; `dex`: the dex's own USDC; `enable`: turn dex abstraction on first. */
type DexMarginPlan = "main" | "dex" | "enable";

/**
 * The plan for dex `dex` from the account's `userDexAbstraction` answer (null: never set) and the
 * value of its own account on that dex. Throws a readable error where no order could be margined: the
 * user chose standard mode and the dex holds nothing.
 */
export function dexMarginPlan(
  dex: string,
  abstraction: boolean | null,
  dexAccountValue: string,
): DexMarginPlan {
  if (dex === "" || abstraction === true) return "main";
  if (dec(dexAccountValue).gt(0)) return "dex";
  if (abstraction === null) return "enable";
  throw new UserError(
    `the account keeps each dex's USDC apart (dex abstraction off) and holds none on the ${dex} dex: move USDC there (hl dex send AMOUNT --to ${dex}) or turn dex abstraction on (hl dex abstraction on)`,
  );
}

/** Read what the plan needs for `dex` ("" is the main dex: nothing to read). */
export async function readDexMarginPlan(client: HlClient, dex: string): Promise<DexMarginPlan> {
  if (dex === "") return "main";
  const abstraction = await client.userDexAbstraction();
  if (abstraction === true) return "main";
  const state = await client.clearinghouseState({ dex });
  return dexMarginPlan(dex, abstraction, state.marginSummary.accountValue);
}

/** Before the first order on `dex`: turn dex abstraction on where the plan says so (never-set accounts). */
export async function prepareDexMargin(
  client: HlClient,
  dex: string,
  log: (line: string) => void,
): Promise<DexMarginPlan> {
  const plan = await readDexMarginPlan(client, dex);
  if (plan === "enable") {
    await client.enableDexAbstraction();
    // An account setting changed on the user's behalf: said, never silent.
    log(
      `turned HIP-3 dex abstraction on for this account (agentEnableDexAbstraction): orders on the ${dex} dex now draw on the main perp USDC balance`,
    );
  }
  return plan;
}

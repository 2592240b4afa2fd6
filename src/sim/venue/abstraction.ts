/**
 * Account abstraction modes (Hyperliquid docs, *Exchange endpoint → Enable HIP-3 DEX abstraction*
 * and *Set user abstraction*; `@nktkas/hyperliquid` 0.32.2's schemas). A new account is in standard
 * mode: each HIP-3 dex margins its positions with its own USDC, moved there with `sendAsset`. Dex
 * abstraction makes the USDC HIP-3 dexes draw on the main perp balance.
 *
 * - `userDexAbstraction {user, enabled}` (user-signed) turns it on or off;
 * - `agentEnableDexAbstraction` (L1, an agent may send it) turns it on, only from never set;
 * - `userSetAbstraction {user, abstraction}` (user-signed) and `agentSetAbstraction {abstraction}`
 *   (L1; "i" disabled, "u" unifiedAccount, "p" portfolioMargin) set the mode. Unified accounts and
 *   portfolio margin (spot and perp balances as one) are not modelled: refused as such.
 *
 * What the exchange does with balances and positions already on a HIP-3 dex when the mode changes is
 * not on record, so the sim refuses a change while any HIP-3 dex holds a position, an open order or
 * USDC of the account (the sim's strict reading; its texts are the sim's).
 */
import type { ExchangeResponse } from "../venue.ts";
import type { VenueCore } from "./core.ts";
import type { Abstraction, Account } from "./types.ts";

const ok: ExchangeResponse = { status: "ok", response: { type: "default" } };
const err = (message: string): ExchangeResponse => ({ status: "err", response: message });

const AGENT_CODES: Record<string, string> = { i: "disabled", u: "unifiedAccount", p: "portfolioMargin" };

export function userDexAbstraction(
  core: VenueCore,
  a: Account,
  act: Record<string, unknown>,
): ExchangeResponse {
  if (typeof act.enabled !== "boolean") return err("Invalid userDexAbstraction action.");
  const user = userRefusal(a, act.user);
  if (user) return err(user);
  return setMode(core, a, act.enabled ? "dexAbstraction" : "disabled");
}

export function agentEnableDexAbstraction(core: VenueCore, a: Account): ExchangeResponse {
  if (a.abstraction !== "default")
    return err("Dex abstraction can only be enabled by an agent when it was never set.");
  return setMode(core, a, "dexAbstraction");
}

export function userSetAbstraction(
  core: VenueCore,
  a: Account,
  act: Record<string, unknown>,
): ExchangeResponse {
  const user = userRefusal(a, act.user);
  if (user) return err(user);
  return setNamedMode(core, a, "userSetAbstraction", act.abstraction, [
    "disabled",
    "dexAbstraction",
    "unifiedAccount",
    "portfolioMargin",
  ]);
}

export function agentSetAbstraction(
  core: VenueCore,
  a: Account,
  act: Record<string, unknown>,
): ExchangeResponse {
  const code = typeof act.abstraction === "string" ? act.abstraction : "";
  const mode = AGENT_CODES[code];
  if (!mode) return err("Invalid agentSetAbstraction action.");
  if (mode !== "disabled") return err(`agentSetAbstraction ${code} is not modelled by the sim world.`);
  return setMode(core, a, "disabled");
}

function setNamedMode(
  core: VenueCore,
  a: Account,
  type: string,
  mode: unknown,
  known: readonly string[],
): ExchangeResponse {
  if (typeof mode !== "string" || !known.includes(mode)) return err(`Invalid ${type} action.`);
  if (mode !== "disabled" && mode !== "dexAbstraction")
    return err(`${type} ${mode} is not modelled by the sim world.`);
  return setMode(core, a, mode);
}

/** A user-signed action names the account it changes: the signer's own (the sim has no sub-accounts). */
function userRefusal(a: Account, user: unknown): string | null {
  if (typeof user !== "string" || !/^0x[0-9a-fA-F]{40}$/.test(user)) return "Invalid user address.";
  return user.toLowerCase() === a.addr ? null : "The user of the action must be the signer's own account.";
}

function setMode(core: VenueCore, a: Account, mode: Abstraction): ExchangeResponse {
  if (sharesMain(mode) !== sharesMain(a.abstraction) && holdsOnHip3(core, a))
    return err(
      "Cannot change abstraction while a HIP-3 dex holds positions, open orders or USDC of the account.",
    );
  a.abstraction = mode;
  // A HIP-3 dex drawing on the main balance keeps no balance of its own.
  if (mode === "dexAbstraction") a.dexPools.clear();
  return ok;
}

function sharesMain(mode: Abstraction): boolean {
  return mode === "dexAbstraction";
}

function holdsOnHip3(core: VenueCore, a: Account): boolean {
  for (const idx of a.positions.keys()) if (core.markets[idx]!.dexIndex > 0) return true;
  for (const o of a.open.values()) if (o.m.dexIndex > 0) return true;
  for (const p of a.dexPools.values()) if (p.cash !== 0) return true;
  return false;
}

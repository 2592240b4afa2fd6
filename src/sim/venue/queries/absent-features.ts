/**
 * Requests about features the sim world does not offer (sub-accounts, TWAP orders, vaults, multi-sig,
 * outcome markets): answered as the exchange answers for a user, or a world, that has none of them.
 */
import { VenueError } from "../../venue.ts";
import type { InfoHandler } from "./context.ts";
import { userAccount, userAddress } from "./context.ts";

/** No sub-accounts: `null`, in both versions of the request. */
export const subAccounts: InfoHandler = (c, r) => {
  userAccount(c, r.user);
  return null;
};

export const twapHistory: InfoHandler = (c, r) => {
  userAccount(c, r.user);
  return [];
};

/** The sim refuses TWAP orders, so no account has a TWAP slice fill. */
export const userTwapSliceFills: InfoHandler = (c, r) => {
  userAccount(c, r.user);
  return [];
};

export const userTwapSliceFillsByTime: InfoHandler = (c, r) => {
  userAccount(c, r.user);
  if (!Number.isSafeInteger(r.startTime)) throw new VenueError("startTime must be an integer");
  return [];
};

export const userVaultEquities: InfoHandler = (c, r) => {
  userAccount(c, r.user);
  return [];
};

/** Vaults the user leads: none. */
export const leadingVaults: InfoHandler = (c, r) => {
  userAccount(c, r.user);
  return [];
};

/** The exchange answers `null` for an address that is not a vault; no address is one here. */
export const vaultDetails: InfoHandler = (_c, r) => {
  if (typeof r.vaultAddress !== "string" || !/^0x[0-9a-fA-F]{40}$/.test(r.vaultAddress))
    throw new VenueError("vaultAddress must be a 0x address");
  if (r.user !== undefined && r.user !== null) userAddress(r.user);
  return null;
};

/** The exchange, too, answers an empty list here (the SDK's own tests against it expect one). */
export const vaultSummaries: InfoHandler = () => [];

/** Not a multi-sig user: `null`. */
export const userToMultiSigSigners: InfoHandler = (c, r) => {
  userAccount(c, r.user);
  return null;
};

/**
 * Accounts waiting to be liquidated: the sim liquidates an account the moment it falls below
 * maintenance, so there are none between requests (the exchange answers an empty list as well).
 */
export const liquidatable: InfoHandler = () => [];

/** The sim lists no outcome (prediction) markets. */
export const outcomeMeta: InfoHandler = () => ({ outcomes: [], questions: [] });

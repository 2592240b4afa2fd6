/** What an /info handler sees, and the parameter checks the handlers share. */
import { type Address, VenueError } from "../../venue.ts";
import type { Clockwork } from "../clockwork.ts";
import type { VenueCore } from "../core.ts";
import type { Account } from "../types.ts";

export type InfoRequest = { type: string; [k: string]: unknown };

export interface InfoCtx {
  core: VenueCore;
  clock: Clockwork;
  now: number;
  /** Answer another info request at the same instant (composite answers such as webData2). */
  ask(req: InfoRequest): unknown;
}

export type InfoHandler = (ctx: InfoCtx, req: InfoRequest) => unknown;

export function userAddress(v: unknown): Address {
  if (typeof v !== "string" || !/^0x[0-9a-fA-F]{40}$/.test(v))
    throw new VenueError("user must be a 0x address");
  return v.toLowerCase() as Address;
}

/**
 * The account an info request names. A new address gets the paper starting balance, except an
 * approved agent's own address: it only signs, so live it is an empty account.
 */
export function userAccount(c: InfoCtx, user: unknown): Account {
  const addr = userAddress(user);
  if (!c.core.accounts.has(addr) && c.core.agents.masterOf(addr, c.now)) return c.core.account(addr);
  return c.core.userAccount(addr, c.now);
}

/** A dex named by the request ("" = the main dex); unknown names are refused. */
export function dexIndexOf(c: InfoCtx, dex: unknown): number {
  const name = dex ?? "";
  if (typeof name !== "string") throw new VenueError("dex must be a string");
  const i = c.core.dexes.findIndex((d) => d.name === name);
  if (i < 0) throw new VenueError(`Unknown dex: ${name}`);
  return i;
}

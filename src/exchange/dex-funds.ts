/**
 * The account's USDC across perp dexes: what each dex holds and which mode margins HIP-3 dexes (read),
 * a move of USDC between the main perp balance and a HIP-3 dex (`sendAsset` to oneself), and turning
 * dex abstraction on (`userDexAbstraction`). A new account is in standard mode: each HIP-3 dex margins
 * with its own USDC (see dex-margin.ts for what a run does about it; it never moves the user's money,
 * these do, on the user's word).
 */

import type { UserAbstractionResponse } from "@nktkas/hyperliquid";
import { D, dec } from "../core/decimal.ts";
import { UserError } from "../core/errors.ts";
import type { HlClient } from "./client.ts";
import type { Address } from "./config.ts";
import { RejectedError } from "./errors.ts";

/** One perp dex's balance of the account ("" the main dex), as its clearinghouseState reports it. */
interface DexBalance {
  dex: string;
  /** The token the dex margins with (`USDC` on the main dex). */
  collateral: string;
  accountValue: string;
  withdrawable: string;
  marginUsed: string;
  positions: number;
}

export interface DexFunds {
  user: Address;
  /** `userAbstraction`: "default" (never set), "disabled", "dexAbstraction", "unifiedAccount", "portfolioMargin". */
  mode: UserAbstractionResponse;
  /** `userDexAbstraction`: null while never set. */
  dexAbstraction: boolean | null;
  dexes: DexBalance[];
}

/** The mode and every perp dex's balance: a `clearinghouseState` per dex, the two mode reads, the collateral tokens. */
export async function readDexFunds(client: HlClient): Promise<DexFunds> {
  const user = accountOf(client);
  const dexes = ["", ...(await client.hip3Dexes())];
  const [mode, dexAbstraction, collaterals, states] = await Promise.all([
    client.userAbstraction({ user }),
    client.userDexAbstraction({ user }),
    client.collateralTokens(),
    Promise.all(dexes.map((dex) => client.clearinghouseState({ user, dex }))),
  ]);
  return {
    user,
    mode,
    dexAbstraction,
    dexes: dexes.map((dex, i) => {
      const state = states[i]!;
      return {
        dex,
        collateral: collaterals.get(dex)?.name ?? "?",
        accountValue: state.marginSummary.accountValue,
        withdrawable: state.withdrawable,
        marginUsed: state.marginSummary.totalMarginUsed,
        positions: state.assetPositions.length,
      };
    }),
  };
}

/** What the mode means for HIP-3 margin, in one phrase. */
export function modeMeaning(mode: string): string {
  switch (mode) {
    case "default":
      return "standard, never set: each HIP-3 dex margins with its own USDC (hl run and WOLF turn dex abstraction on before a first order on a HIP-3 dex that holds none)";
    case "disabled":
      return "standard: each HIP-3 dex margins with its own USDC";
    case "dexAbstraction":
      return "dex abstraction: HIP-3 dexes draw on the main perp balance";
    case "unifiedAccount":
      return "unified account: spot and perp USDC as one balance";
    case "portfolioMargin":
      return "portfolio margin: spot and perp balances margined together";
    default:
      return mode;
  }
}

/** "" is the main dex, as the exchange names it; people say "main". */
export function dexLabel(dex: string): string {
  return dex === "" ? "main" : dex;
}

/** A checked move: between the main dex ("") and a HIP-3 dex, or two HIP-3 dexes. */
interface DexSend {
  sourceDex: string;
  destinationDex: string;
  /** USDC, a positive decimal in normal form. */
  amount: string;
}

const DECIMAL = /^(\d+(\.\d*)?|\.\d+)$/;

/** A positive decimal amount of USDC, or one readable refusal. */
function parseUsdcAmount(raw: string): string {
  const text = raw.trim();
  if (!DECIMAL.test(text) || new D(text).lte(0))
    throw new UserError(`amount must be a positive decimal number of USDC, got "${raw}"`);
  return new D(text).toFixed();
}

/** A move as asked for, before the dex names are checked against the exchange's dexes. */
interface DexSendRequest {
  amount: string;
  /** Dex names as typed; "main" (or omitted) is the main perp balance. */
  from: string;
  to: string;
}

/** Check what needs no exchange: a positive amount, a direction, two different ends. Pure. */
export function dexSendRequest(amount: string, from?: string, to?: string): DexSendRequest {
  if (from === undefined && to === undefined)
    throw new UserError(
      "say where: --to DEX moves USDC from the main perp balance to a HIP-3 dex, --from DEX back",
    );
  const name = (dex: string | undefined) => {
    const n = (dex ?? "").trim().toLowerCase();
    return n === "main" ? "" : n;
  };
  const request = { amount: parseUsdcAmount(amount), from: name(from), to: name(to) };
  if (request.from === request.to)
    throw new UserError(`--from and --to both name the ${dexLabel(request.from)} dex: nothing to move`);
  return request;
}

/** The move, its dexes checked against the exchange's HIP-3 dexes. Pure. */
export function planDexSend(req: DexSendRequest, hip3Dexes: readonly string[]): DexSend {
  const known = (dex: string): string => {
    if (dex !== "" && !hip3Dexes.includes(dex))
      throw new UserError(
        `unknown dex "${dex}": the HIP-3 dexes here are ${hip3Dexes.join(", ") || "none"} (the main one is "main")`,
      );
    return dex;
  };
  return { sourceDex: known(req.from), destinationDex: known(req.to), amount: req.amount };
}

/**
 * Move the USDC (`sendAsset` to the account itself, user-signed). Both dexes must margin with USDC;
 * the exchange checks the amount against what the source may release (its `withdrawable`), and its
 * refusal is said in its own words. Returns the token as sent.
 */
export async function sendDexUsdc(client: HlClient, send: DexSend): Promise<string> {
  const collaterals = await client.collateralTokens();
  const token = collaterals.get("")?.wire;
  if (!token) throw new UserError("the exchange lists no collateral token for the main dex");
  for (const dex of [send.sourceDex, send.destinationDex]) {
    const collateral = collaterals.get(dex);
    if (!collateral) throw new UserError(`the exchange lists no collateral token for the ${dex} dex`);
    if (collateral.wire !== token)
      throw new UserError(
        `the ${dex} dex margins with ${collateral.name}, not USDC: this command moves USDC only`,
      );
  }
  try {
    await client.sendAssetToSelf({ ...send, token, amount: dec(send.amount) });
  } catch (err) {
    if (err instanceof RejectedError)
      throw new UserError(`the exchange refused the move: ${err.message}`, { cause: err });
    throw err;
  }
  return token;
}

/**
 * Turn dex abstraction on with the account's own signature (`userDexAbstraction {enabled: true}`):
 * unlike `agentEnableDexAbstraction`, which a run sends and the exchange takes only while the mode was
 * never set, it also takes an account the user put in standard mode. Signs nothing when it is on
 * already; refuses a unified or portfolio-margin account (the switch would take it out of that mode).
 */
export async function turnDexAbstractionOn(client: HlClient): Promise<{ signed: boolean }> {
  const user = accountOf(client);
  const [mode, enabled] = await Promise.all([
    client.userAbstraction({ user }),
    client.userDexAbstraction({ user }),
  ]);
  if (enabled === true || mode === "dexAbstraction") return { signed: false };
  if (mode === "unifiedAccount" || mode === "portfolioMargin")
    throw new UserError(
      `the account is in ${mode} mode: turning dex abstraction on would take it out of that mode; not done`,
    );
  try {
    await client.setDexAbstraction(true);
  } catch (err) {
    if (err instanceof RejectedError)
      throw new UserError(`the exchange refused dex abstraction: ${err.message}`, { cause: err });
    throw err;
  }
  const after = await client.userDexAbstraction({ user });
  if (after !== true)
    throw new UserError(
      `the exchange accepted userDexAbstraction but reports dex abstraction ${String(after)}`,
    );
  return { signed: true };
}

function accountOf(client: HlClient): Address {
  if (!client.address) throw new UserError(`no wallet configured for ${client.network}: set HL_PRIVATE_KEY`);
  return client.address;
}

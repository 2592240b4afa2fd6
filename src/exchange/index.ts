/**
 * The one Hyperliquid client every component uses (ARCHITECTURE.md §2).
 *
 *   const client = await HlClient.create({ network: resolveNetwork(flag) });   // paper | testnet | mainnet
 *   await client.ensurePaperWorld();                  // paper only: start the sim world if nothing listens
 *   const mids = await client.allMidsMerged();        // info reads: typed, decimal strings stay strings
 *   const r = await client.order({ instrument: "ETH-PERP", side: "buy", size: "0.1", price: "2500", tif: "Gtc" });
 *   if (r.status === "filled") …                      // {resting,oid} | {filled,oid,totalSz,avgPx} | {error,message}
 *   const sub = await client.stream.allMids((e) => …); // WebSocket
 *   await client.close();
 *
 * Failures are typed: ExchangeError ⊃ NetworkError | RateLimitedError | TimeoutError | RejectedError
 * (the exchange said no; `.message` is its text). Bad input from the user (unknown instrument, no
 * wallet, bad leverage) is a UserError. A private key never appears in any message.
 *
 * Signing: mainnet signs as mainnet; testnet and paper sign with the testnet flavour (source "b",
 * hyperliquidChain "Testnet").
 */

export type { OrderResult, Side, TimeInForce } from "./actions.ts";
export { RateBudget, type WeightBudget } from "./budget.ts";
export { HlClient } from "./client.ts";
export type { Address } from "./config.ts";
export { RateLimitedError, RejectedError } from "./errors.ts";
export { type AccountSummary, HlInfo, paginateByTime, summarizeAccount } from "./info.ts";
export { RoundingError, roundPrice, slippagePrice } from "./rounding.ts";
export { type ClientSession, openClientSession } from "./session.ts";
export { loadOrCreatePaperWallet } from "./signer.ts";
export { canonicalInstrument, coinToInstrument, instrumentToCoin } from "./symbols.ts";

/**
 * The boundary between the sim world's exchange core (matching, accounts, margin, funding: the
 * "venue") and its transports (HTTP /info and /exchange, WebSocket, signature verification, admin
 * endpoints, market model driving house market makers).
 *
 * The transport verifies the signature and nonce, recovers the signer, and hands the venue an
 * already-authenticated action. The venue answers in the exchange's exact response shapes.
 */

export type Address = `0x${string}`;

/** Raised by the venue for a request it refuses; the transport turns it into the exchange's error shape. */
export class VenueError extends Error {
  override name = "VenueError";
}

/** Wire shapes of the L1 order action (as the SDK sends it). */
export interface WireOrder {
  a: number;
  b: boolean;
  p: string;
  s: string;
  r: boolean;
  t:
    | { limit: { tif: "Gtc" | "Ioc" | "Alo" | "FrontendMarket" } }
    | { trigger: { isMarket: boolean; triggerPx: string; tpsl: "tp" | "sl" } };
  c?: `0x${string}`;
}

export type ExchangeAction =
  | { type: "order"; orders: WireOrder[]; grouping: unknown; builder?: { b: Address; f: number } }
  | { type: "cancel"; cancels: { a: number; o: number }[] }
  | { type: "cancelByCloid"; cancels: { asset: number; cloid: `0x${string}` }[] }
  | { type: "updateLeverage"; asset: number; isCross: boolean; leverage: number }
  | {
      type: "approveBuilderFee";
      maxFeeRate: string;
      builder: Address;
      nonce: number;
      hyperliquidChain: string;
      signatureChainId: string;
    }
  | {
      type: "approveAgent";
      agentAddress: Address;
      agentName?: string | null;
      nonce: number;
      hyperliquidChain: string;
      signatureChainId: string;
    }
  | {
      type: "usdSend";
      destination: Address;
      amount: string;
      time: number;
      hyperliquidChain: string;
      signatureChainId: string;
    }
  | {
      type: "withdraw3";
      destination: Address;
      amount: string;
      time: number;
      hyperliquidChain: string;
      signatureChainId: string;
    }
  | { type: string; [k: string]: unknown };

/** `{status:"ok", response:{type, data?}}` or `{status:"err", response:"message"}` — the exchange's shapes. */
export type ExchangeResponse =
  | { status: "ok"; response: { type: string; data?: unknown } }
  | { status: "err"; response: string };

/** Events the venue publishes; the WebSocket layer maps them to subscription channels. */
export type VenueEvent =
  | { kind: "trades"; coin: string; trades: unknown[] } // channel "trades": [{coin, side, px, sz, time, hash, tid, users}]
  | { kind: "l2Book"; coin: string } // the book of `coin` changed; WS layer re-reads info l2Book and pushes it
  | { kind: "allMids"; dex: string } // mids of a dex changed
  | { kind: "userFills"; user: Address; fills: unknown[] } // channel "userFills": {user, fills, isSnapshot?}
  | { kind: "orderUpdates"; user: Address; updates: unknown[] } // channel "orderUpdates": [{order, status, statusTimestamp}]
  | { kind: "candle"; coin: string; interval: string; candle: unknown }
  | { kind: "ledger"; user: Address; update: unknown }
  // A funding payment: {time, coin, usdc, szi, fundingRate, nSamples}
  | { kind: "funding"; user: Address; funding: Record<string, unknown> };

/**
 * What a subscriber wants besides book and mids changes (left out: everything). Events no subscriber
 * wants are never rendered, so the house's own order updates and fills cost nothing while nobody
 * watches them; an event some subscriber wants goes to every subscriber.
 */
export interface VenueInterest {
  /** Whether `user`'s account events (fills, order updates, ledger, funding) are wanted. */
  user(user: Address): boolean;
  /** Whether `coin`'s trades and candles are wanted. */
  coin(coin: string): boolean;
}

export interface Venue {
  /** Answer one POST /info body ({type, ...}); throws VenueError for a bad request. */
  info(req: { type: string; [k: string]: unknown }): unknown;
  /** Apply one authenticated action. `user` is the master account (agent wallets already mapped). */
  exchange(action: ExchangeAction, user: Address, nonce: number): ExchangeResponse;
  /** Current sim time in ms (the sim clock may run faster than wall time). */
  now(): number;
  subscribe(listener: (e: VenueEvent) => void, interest?: VenueInterest): () => void;
}

import { z } from "zod";

/** The WebSocket subscriptions the sim world serves, as Hyperliquid spells them. */
const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/);

export const subscriptionSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("allMids"), dex: z.string().optional() }),
  z.object({
    type: z.literal("l2Book"),
    coin: z.string().min(1),
    nSigFigs: z.union([z.literal(2), z.literal(3), z.literal(4), z.literal(5)]).nullish(),
    mantissa: z.union([z.literal(2), z.literal(5)]).nullish(),
  }),
  z.object({ type: z.literal("bbo"), coin: z.string().min(1) }),
  z.object({ type: z.literal("activeAssetCtx"), coin: z.string().min(1) }),
  z.object({ type: z.literal("assetCtxs"), dex: z.string().optional() }),
  z.object({ type: z.literal("trades"), coin: z.string().min(1) }),
  z.object({ type: z.literal("candle"), coin: z.string().min(1), interval: z.string().min(1) }),
  z.object({ type: z.literal("userFills"), user: address, aggregateByTime: z.boolean().optional() }),
  z.object({ type: z.literal("orderUpdates"), user: address }),
  z.object({ type: z.literal("clearinghouseState"), user: address, dex: z.string().optional() }),
  z.object({ type: z.literal("openOrders"), user: address, dex: z.string().optional() }),
  z.object({ type: z.literal("userEvents"), user: address }),
  z.object({ type: z.literal("userFundings"), user: address }),
  z.object({ type: z.literal("webData2"), user: address }),
  z.object({ type: z.literal("activeAssetData"), user: address, coin: z.string().min(1) }),
  z.object({ type: z.literal("userNonFundingLedgerUpdates"), user: address }),
  z.object({ type: z.literal("notification"), user: address }),
]);

export type Subscription = z.infer<typeof subscriptionSchema>;

/** The event stream a subscription listens to (several subscriptions may share one). */
export function topicOf(s: Subscription): string {
  switch (s.type) {
    case "allMids":
      return `allMids:${s.dex ?? ""}`;
    // Asset contexts change with any price of their dex: they ride on the dex's mids stream.
    case "assetCtxs":
      return `assetCtxs:${s.dex ?? ""}`;
    case "activeAssetCtx":
      return `activeAssetCtx:${dexOf(s.coin)}`;
    case "l2Book":
    case "bbo":
    case "trades":
      return `${s.type}:${s.coin}`;
    case "candle":
      return `candle:${s.coin}:${s.interval}`;
    // Account streams; clearinghouseState and openOrders carry every dex's view on one topic per user.
    case "userFills":
    case "orderUpdates":
    case "userEvents":
    case "userFundings":
    case "clearinghouseState":
    case "openOrders":
    case "webData2":
    case "userNonFundingLedgerUpdates":
    case "notification":
      return `${s.type}:${s.user.toLowerCase()}`;
    case "activeAssetData":
      return `activeAssetData:${s.user.toLowerCase()}`;
  }
}

/** The dex a coin trades on: the prefix of a HIP-3 name ("yex:VXX" → "yex"), else the main dex (""). */
export function dexOf(coin: string): string {
  const i = coin.indexOf(":");
  return i > 0 ? coin.slice(0, i) : "";
}

/** Identity of a subscription as the SDK computes it: keys sorted, hex lower-cased. */
export function subscriptionId(value: unknown): string {
  return JSON.stringify(normalise(value));
}

function normalise(v: unknown): unknown {
  if (typeof v === "string") return /^0x[0-9a-fA-F]+$/.test(v) ? v.toLowerCase() : v;
  if (Array.isArray(v)) return v.map(normalise);
  if (typeof v === "object" && v !== null) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) {
      const x = (v as Record<string, unknown>)[k];
      if (x !== undefined) out[k] = normalise(x);
    }
    return out;
  }
  return v;
}

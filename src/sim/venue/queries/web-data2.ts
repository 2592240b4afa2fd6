import { fmtScaled, parseScaled } from "../fixed.ts";
import type { InfoHandler } from "./context.ts";
import { userAccount } from "./context.ts";

/**
 * webData2 {user}: what the exchange's own front end polls — the user's main-dex clearinghouse state,
 * open orders, agent and ledger total, with the main dex's meta and asset contexts and the spot state.
 */
export const webData2: InfoHandler = (c, r) => {
  const a = userAccount(c, r.user);
  const [meta, assetCtxs] = c.ask({ type: "metaAndAssetCtxs" }) as [unknown, unknown[]];
  const [, spotAssetCtxs] = c.ask({ type: "spotMetaAndAssetCtxs" }) as [unknown, unknown[]];
  const agents = c.ask({ type: "extraAgents", user: a.addr }) as { address: string; validUntil: number }[];
  let cumLedger = 0;
  for (const u of a.ledger) {
    const usdc = parseScaled(u.delta.usdc, 6)?.scaled ?? 0;
    if (u.delta.type === "deposit") cumLedger += usdc;
    else if (u.delta.type === "withdraw") cumLedger -= usdc;
  }
  return {
    clearinghouseState: c.ask({ type: "clearinghouseState", user: a.addr }),
    leadingVaults: [],
    totalVaultEquity: "0",
    openOrders: c.ask({ type: "frontendOpenOrders", user: a.addr }),
    agentAddress: agents[0]?.address ?? null,
    agentValidUntil: agents[0]?.validUntil ?? null,
    cumLedger: fmtScaled(Math.max(0, cumLedger), 6),
    meta,
    assetCtxs,
    serverTime: c.now,
    isVault: false,
    user: a.addr,
    twapStates: [],
    spotState: c.ask({ type: "spotClearinghouseState", user: a.addr }),
    spotAssetCtxs,
    perpsAtOpenInterestCap: c.ask({ type: "perpsAtOpenInterestCap" }),
  };
};

import { fmtScaled, parseScaled } from "../fixed.ts";
import type { InfoHandler } from "./context.ts";
import { dexIndexOf } from "./context.ts";

/**
 * perpDexStatus {dex}: USDC held by the dex. A HIP-3 dex holds the isolated margin of its positions and
 * the balances accounts in standard mode moved there; the main dex everything else that was deposited
 * and not withdrawn.
 */
export const perpDexStatus: InfoHandler = (c, r) => {
  const di = dexIndexOf(c, r.dex);
  let hip3 = 0;
  let onDex = 0;
  let net = 0;
  for (const a of c.core.accounts.values()) {
    for (const u of a.ledger) {
      const usdc = parseScaled(u.delta.usdc, 6)?.scaled ?? 0;
      if (u.delta.type === "deposit") net += usdc;
      else if (u.delta.type === "withdraw") net -= usdc;
    }
    for (const [k, pool] of a.dexPools) {
      hip3 += pool.cash;
      if (k === di) onDex += pool.cash;
    }
    for (const [idx, p] of a.positions) {
      const m = c.core.markets[idx]!;
      if (m.dexIndex === 0) continue;
      hip3 += p.isoMargin;
      if (m.dexIndex === di) onDex += p.isoMargin;
    }
  }
  const total = di === 0 ? net - hip3 : onDex;
  return { totalNetDeposit: fmtScaled(Math.max(0, total), 6) };
};

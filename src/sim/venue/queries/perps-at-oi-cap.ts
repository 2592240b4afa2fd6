import { D } from "../../../core/decimal.ts";
import type { InfoHandler } from "./context.ts";
import { dexIndexOf } from "./context.ts";

type PerpDex = { assetToStreamingOiCap: [string, string][] } | null;

/** perpsAtOpenInterestCap {dex?}: coins whose open interest (at the mark) has reached the dex's cap. */
export const perpsAtOpenInterestCap: InfoHandler = (c, r) => {
  const di = dexIndexOf(c, r.dex);
  const dexes = c.ask({ type: "perpDexs" }) as PerpDex[];
  const caps = new Map(dexes[di]?.assetToStreamingOiCap ?? []);
  const out: string[] = [];
  for (const m of c.core.markets) {
    const cap = caps.get(m.coin);
    if (m.dexIndex !== di || cap === undefined) continue;
    const oiUsd = new D(m.openInterest).mul(c.core.markPx(m)).div(1_000_000);
    if (oiUsd.gte(cap)) out.push(m.coin);
  }
  return out;
};

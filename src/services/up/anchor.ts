import { D } from "../../core/decimal.ts";
import type { WeightBudget } from "../../exchange/budget.ts";
import { postInfo } from "./weighed-info.ts";

const BTCSWP_COIN = "yex:BTCSWP";
/** Where the BTCSWP oracle starts (the feed's baseline) before the feed has published. */
export const BTCSWP_BASELINE = "75000";
/** Beyond this distance from the oracle the sim market is moved back (points count fills within 25 bps). */
const ANCHOR_BAND_BPS = 10;

/** The sim's mid of the BTCSWP market, or undefined when it cannot be read. */
async function simMid(simUrl: string, budget: WeightBudget | undefined): Promise<string | undefined> {
  const mids = await postInfo(simUrl, { type: "allMids", dex: "yex" }, { budget });
  const mid =
    typeof mids === "object" && mids !== null ? (mids as Record<string, unknown>)[BTCSWP_COIN] : undefined;
  return typeof mid === "string" ? mid : undefined;
}

/** Does `mid` need moving to stay within the band around `oracle`? */
export function offOracle(mid: string | undefined, oracle: string, bandBps = ANCHOR_BAND_BPS): boolean {
  if (mid === undefined) return true;
  const o = new D(oracle);
  return new D(mid).minus(o).abs().div(o).times(10_000).gt(bandBps);
}

/**
 * Keep the sim's BTCSWP market trading near the BTCSWP oracle, as arbitrage keeps the real one, so
 * fills on it can earn points. Moves the sim price (POST /sim/price) only when it has drifted out
 * of the band. Returns true when it moved it. The mid is read as one of the IP's reads, spent from
 * `budget` (the weight broker's, under `hl up`); moving the price is the sim's admin, unweighed.
 */
export async function anchorBtcswp(
  simUrl: string,
  oraclePx: string,
  budget?: WeightBudget,
): Promise<boolean> {
  const mid = await simMid(simUrl, budget);
  if (!offOracle(mid, oraclePx)) return false;
  const res = await fetch(`${simUrl}/sim/price`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ coin: BTCSWP_COIN, px: new D(oraclePx).toDecimalPlaces(2).toFixed() }),
    signal: AbortSignal.timeout(2000),
  });
  await res.body?.cancel();
  return res.ok;
}

import { writeCandles, writeFunding } from "../../src/market/index.ts";
import { simHistory } from "./sim-history.ts";

/** Writes `days` of the sim model's ETH 1 m candles and funding into the market-data store under `root`. */
export async function writeSimStore(
  root: string,
  opts: { coin?: string; endMs: number; days: number; network?: string },
) {
  const coin = opts.coin ?? "ETH";
  const h = simHistory({ coin, szDecimals: 4, endPx: 3400, endMs: opts.endMs, days: opts.days });
  const target = { root, network: opts.network ?? "paper", coin };
  await writeCandles({ ...target, interval: "1m" }, h.candles);
  await writeFunding(target, h.funding);
  return h;
}

import { feeRates } from "../../src/backtest/fee-schedule.ts";
import { Ledger } from "../../src/backtest/ledger.ts";
import { type CandleRow, CandleSeries, type FundingRow } from "../../src/backtest/market-history.ts";
import { MarketTape } from "../../src/backtest/market-tape.ts";
import { ReplayVenue } from "../../src/backtest/replay-venue.ts";
import type { Cloid, PlaceRequest } from "../../src/engine/ports.ts";
import type { BookRow, TradeRow } from "../../src/market/types.ts";

export const MINUTE = 60_000;
/** The first candle's open. */
export const T0 = Date.UTC(2026, 0, 1);

/** One candle: open, high, low, close and (optionally) its volume. */
export type Bar = [o: number, h: number, l: number, c: number, v?: number];

/** 1 m candles from T0, one per bar; a bar without a volume has `volume`. */
export function candleRows(bars: readonly Bar[], volume: number): CandleRow[] {
  return bars.map(([o, h, l, c, v = volume], i) => ({
    t: T0 + i * MINUTE,
    T: T0 + i * MINUTE + MINUTE - 1,
    o: String(o),
    h: String(h),
    l: String(l),
    c: String(c),
    v: String(v),
    n: 5,
  }));
}

export interface VenueRigOptions {
  /** Volume of a bar that gives none (default 10). */
  volume?: number;
  slippageBps?: number;
  /** Default 1: the whole candle's volume. */
  participation?: number;
  latencyMs?: number;
  candleWindow?: number;
  funding?: FundingRow[];
  /** A recorded tape (trades and book snapshots) to fill from instead of the candles' range. */
  trades?: TradeRow[];
  books?: BookRow[];
}

/** A replay venue on ETH-PERP over `bars` at fee tier 0, with its ledger and a hand on its clock. */
export function venueRig(bars: readonly Bar[], o: VenueRigOptions = {}) {
  let now = T0;
  const ledger = new Ledger();
  const tape = o.trades || o.books ? new MarketTape(o.trades ?? [], o.books ?? []) : undefined;
  const v = new ReplayVenue(
    new CandleSeries(candleRows(bars, o.volume ?? 10), MINUTE),
    o.funding ?? [],
    {
      instrument: "ETH-PERP",
      szDecimals: 4,
      now: () => now,
      fees: feeRates(0),
      latencyMs: o.latencyMs ?? 0,
      slippageBps: o.slippageBps ?? 1,
      participation: o.participation ?? 1,
      candleWindow: o.candleWindow ?? 0,
      ledger,
      startMs: T0,
    },
    tape,
  );
  return { v, ledger, at: (ms: number) => (now = ms) };
}

let sent = 0;
/** An ETH-PERP order request with a fresh cloid. */
export function orderRequest(
  side: "buy" | "sell",
  price: string,
  size: string,
  tif: PlaceRequest["tif"] = "Gtc",
  reduceOnly = false,
): PlaceRequest {
  sent += 1;
  return {
    instrument: "ETH-PERP",
    cloid: `0x${sent.toString(16).padStart(32, "0")}` as Cloid,
    side,
    price,
    size,
    tif,
    reduceOnly,
  };
}

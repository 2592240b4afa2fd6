import { dec, wire } from "../../core/decimal.ts";
import { classifyRejection } from "../../exchange/rejections.ts";
import { roundPrice, slippagePrice } from "../../exchange/rounding.ts";
import { coinToInstrument } from "../../exchange/symbols.ts";
import { type CandleInterval, INTERVAL_MS } from "../../signals/candles.ts";
import type { MarketCtx } from "../../signals/market.ts";
import type {
  AccountFill,
  ExchangePosition,
  IocRequest,
  IocResult,
  MarketInfo,
  ResolvedIoc,
  WolfPort,
} from "../../wolf/port.ts";
import { takerFill, wholeLots } from "../candle-fill-model.ts";
import type { FeeRates } from "../fee-schedule.ts";
import { REFUSAL } from "../replay-venue.ts";
import type { CoinReplay } from "./coin-replay.ts";

const MIN_ORDER_VALUE_USD = 10;

interface ReplayWolfPortOptions {
  /** Market (virtual) time. */
  now: () => number;
  fees: FeeRates;
  /** An order reaches the venue this long after it is sent (market time). */
  latencyMs: number;
  /** A fill is this much worse than the open it fills at (bps). */
  slippageBps: number;
  /** Our fills in a candle are at most this share of its volume (0–1]; the rest of an IOC lapses. */
  participation: number;
  /** End of the backtest period: no order fills in a candle opening at or after it. */
  endMs: number;
  /**
   * Moves market time forward to `ms` (and replays the candles closed by then): an order out on the
   * wire keeps the caller waiting, as a live IOC does, so it is booked when it executes.
   */
  waitUntil: (ms: number) => void;
}

/**
 * WolfPort over recorded history (what `hl-port.ts` is for the live exchange): the markets, mids
 * and candles of the replayed universe as of the virtual clock, and an account whose IOCs fill by
 * the candle fill model — at the open of the first candle starting at or after the order's arrival
 * (now + latency), moved against it by the slippage, never beyond its limit (else it does not fill).
 * With latency the call returns once market time has reached that open (the fill is booked then,
 * never at send time); every order is answered: nothing is ever "unknown".
 */
export class ReplayWolfPort implements WolfPort {
  private readonly byCoin: Map<string, CoinReplay>;
  private readonly fillLog: AccountFill[] = [];
  private oidSeq = 0;
  private fillSeq = 0;
  /** Per coin: the candle whose volume share is in use, and what is left of it. */
  private readonly share = new Map<string, { k: number; left: number }>();
  /** IOCs sent, and those that did not fill (refused or not marketable). */
  iocsSent = 0;
  iocsUnfilled = 0;
  readonly leverage = new Map<string, number>();

  constructor(
    readonly coins: readonly CoinReplay[],
    private readonly o: ReplayWolfPortOptions,
  ) {
    this.byCoin = new Map(coins.map((c) => [c.coin, c]));
  }

  now(): number {
    return this.o.now();
  }

  private coin(name: string): CoinReplay {
    const c = this.byCoin.get(name);
    if (!c) throw new Error(`no recorded history for ${name} in this backtest`);
    return c;
  }

  async markets(): Promise<MarketCtx[]> {
    const out: MarketCtx[] = [];
    for (const c of this.coins) {
      if (!c.priced) continue;
      const mark = c.mid();
      out.push({
        name: c.coin,
        volume_24h: c.volumeNtl24h,
        funding_rate: c.fundingRate,
        open_interest: c.openInterest,
        open_interest_usd: c.openInterest * mark,
        mark_price: mark,
        // Its recording stopped before the period's end: the signals leave it alone, as a delisted coin.
        delisted: c.ended,
      });
    }
    return out;
  }

  async candles(coin: string, interval: CandleInterval, startTime: number, endTime: number) {
    return this.coin(coin).candles(INTERVAL_MS[interval], startTime, endTime, this.o.now());
  }

  async mids(): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    for (const c of this.coins) if (c.priced) out[c.coin] = c.lastCloseRaw();
    return out;
  }

  async positions(): Promise<ExchangePosition[]> {
    return this.coins
      .filter((c) => !c.ledger.qty.isZero())
      .map((c) => ({ coin: c.coin, szi: wire(c.ledger.qty), entryPx: wire(c.ledger.avg) }));
  }

  async marketInfo(coin: string): Promise<MarketInfo> {
    const c = this.coin(coin);
    return { instrument: coinToInstrument(coin), szDecimals: c.szDecimals, maxLeverage: c.maxLeverage };
  }

  instrumentOf(coin: string): string {
    return coinToInstrument(coin);
  }

  /** Kept for the record only: margin and liquidation are not modelled. */
  async setLeverage(coin: string, leverage: number): Promise<void> {
    this.leverage.set(coin, leverage);
  }

  async ioc(req: IocRequest): Promise<IocResult> {
    this.iocsSent += 1;
    const r = this.execute(req);
    if (r.status !== "filled") this.iocsUnfilled += 1;
    return r;
  }

  private execute(req: IocRequest): IocResult {
    const c = this.coin(req.coin);
    const refuse = (message: string): IocResult => ({
      status: "unfilled",
      message,
      rejection: classifyRejection(message),
    });
    const mid = c.mid();
    if (!(mid > 0)) return { status: "unfilled", message: `no price for ${req.coin} yet` };
    let size = dec(req.size);
    if (!size.gt(0) || size.decimalPlaces() > c.szDecimals) return refuse(REFUSAL.size);
    const buy = req.side === "buy";
    const held = c.ledger.qty;
    if (req.reduceOnly) {
      if (held.isZero() || held.isPos() === buy) return refuse(REFUSAL.reduceOnly);
      if (size.gt(held.abs())) size = held.abs();
    } else if (size.times(mid).lt(MIN_ORDER_VALUE_USD)) return refuse(REFUSAL.minValue);
    // Priced off the replay's own mid (the caller's, when it passes one, is the same close).
    const limit = Number(slippagePrice(c.lastCloseRaw(), req.side, req.slippage, c.szDecimals));
    const k = c.firstAtOrAfter(this.o.now() + this.o.latencyMs);
    const s = c.series;
    if (k >= s.length || s.t[k]! >= this.o.endMs)
      return { status: "unfilled", message: "no recorded candle in the period after the order's arrival" };
    // Out on the wire until it reaches the candle it trades in.
    if (s.t[k]! > this.o.now()) this.o.waitUntil(s.t[k]!);
    const fill = takerFill(req.side, limit, s.o[k]!, this.o.slippageBps);
    if (!fill)
      return { status: "unfilled", message: "IOC did not fill: the open, slipped, was beyond its limit" };
    // At most the participation share of the candle's volume, shared by every order in it.
    let used = this.share.get(c.coin);
    if (!used || used.k !== k) {
      used = { k, left: s.v[k]! * this.o.participation };
      this.share.set(c.coin, used);
    }
    if (size.toNumber() > used.left) {
      const most = wholeLots(used.left, c.szDecimals);
      if (!most.gt(0))
        return { status: "unfilled", message: "IOC did not fill: the candle's volume share is used up" };
      size = most;
    }
    used.left -= size.toNumber();
    const price = roundPrice(fill.px, c.szDecimals, buy ? "up" : "down");
    const fee = wire(dec(price).times(size).times(this.o.fees.taker).toDecimalPlaces(8));
    const time = s.t[k]!;
    this.oidSeq += 1;
    this.fillSeq += 1;
    const oid = String(this.oidSeq);
    c.ledger.applyFill({
      id: `bt${this.fillSeq}`,
      time_ms: time,
      side: req.side,
      price,
      size: wire(size),
      fee,
      liquidity: "taker",
    });
    this.fillLog.push({ coin: c.coin, side: req.side, size: wire(size), price, fee, time, oid });
    return { status: "filled", oid, size: wire(size), price, fee };
  }

  /** Never needed: every backtest order is answered when it is sent. */
  async resolveIoc(): Promise<ResolvedIoc> {
    return { status: "unfilled", message: "unknown order: every backtest order is answered when sent" };
  }

  async fillsSince(coin: string, startMs: number): Promise<AccountFill[]> {
    return this.fillLog.filter((f) => f.coin === coin && f.time >= startMs);
  }

  /** Wallets' positions are not recorded: smart-money signals are not replayed. */
  async walletPositions(): Promise<null> {
    return null;
  }

  async subscribeMids(): Promise<() => Promise<void>> {
    throw new Error("no price stream in a backtest: prices are replayed candle by candle");
  }
}

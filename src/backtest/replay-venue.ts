import { type Dec, dec, wire } from "../core/decimal.ts";
import type {
  CancelResult,
  Cloid,
  GatewayFill,
  GatewayOrder,
  InstrumentSpec,
  MarketDataPort,
  OrderGateway,
  PlaceOutcome,
  PlaceRequest,
} from "../engine/ports.ts";
import { isValidPrice, roundPrice } from "../exchange/rounding.ts";
import type { Candle, MarketSnapshot, Side, Tif } from "../strategies/sdk.ts";
import { type CandleBar, crossesPrice, makerFill, takerFill, wholeLots } from "./candle-fill-model.ts";
import type { FeeRates } from "./fee-schedule.ts";
import type { Ledger } from "./ledger.ts";
import type { CandleSeries, FundingRow } from "./market-history.ts";
import type { MarketTape } from "./market-tape.ts";
import { type BookLevels, depthAt, sizeAhead, type TradeEvent, tradeAgainst } from "./trade-fill-model.ts";

/** Hyperliquid's refusal texts for what the replay checks. */
export const REFUSAL = {
  minValue: "Order must have minimum value of $10.",
  tick: "Price must be divisible by tick size.",
  size: "Order has invalid size.",
  reduceOnly: "Reduce only order would increase position.",
  postOnly: "Post only order would have immediately matched.",
  unknownOrder: "Order was never placed, already canceled, or filled.",
} as const;

const MIN_ORDER_VALUE_USD = 10;
const DAY_MS = 86_400_000;

interface ReplayVenueOptions {
  instrument: string;
  szDecimals: number;
  now: () => number;
  fees: FeeRates;
  /** Orders and cancels reach the venue this long after they are sent (market time). */
  latencyMs: number;
  /** A taker meets the touch at its arrival moved this much against it (bps); beyond its limit it does not fill. */
  slippageBps: number;
  /** Our fills in a candle replayed from its range are at most this share of its volume (0–1]. */
  participation: number;
  /** Closed candles the snapshot carries (0: none, for strategies that do not read them). */
  candleWindow: number;
  ledger: Ledger;
  /** Equity samples start with the first candle opening at or after this time. */
  startMs: number;
}

interface VenueOrder {
  oid: string;
  cloid: Cloid;
  side: Side;
  tif: Tif;
  reduceOnly: boolean;
  px: number;
  price: string;
  size: string;
  /** `size` as a number (for comparing with trade sizes). */
  sizeN: number;
  /** First candle open the order can trade in: its arrival, rounded up to an open. */
  liveFromMs: number;
  /** Its cancel's arrival (Infinity: none asked). */
  cancelAtMs: number;
  /** Trade model: size displayed ahead of it at its price (set when it arrives; -1 before). */
  queue: number;
  tag: string | undefined;
}

/** Per-candle samples of the run, for the report's figures and charts. */
export interface ReplayTape {
  /** Open times of the candles replayed in the run, and their prices (the report draws real candles). */
  t: number[];
  open: number[];
  high: number[];
  low: number[];
  close: number[];
  /** Equity change since the start (realized − fees + funding + unrealized) at each close. */
  pnl: number[];
  /** Position at each close. */
  qty: number[];
}

/**
 * A venue that replays recorded candles: market data for the engine's snapshots and an order
 * gateway whose orders fill by the candle fill model. Time is the engine's (virtual) clock: each
 * call first replays every candle that has closed by then — funding settlements, then the candle's
 * fills, then an equity sample. The snapshot's mid is the last close, with a one-tick spread around it.
 */
export class ReplayVenue implements MarketDataPort, OrderGateway {
  private next = 0;
  private fundingNext = 0;
  private readonly orders: VenueOrder[] = [];
  private readonly fillLog: GatewayFill[] = [];
  private oidSeq = 0;
  private fillSeq = 0;
  /** The fee rates as decimals, parsed once. */
  private readonly makerRate: Dec;
  private readonly takerRate: Dec;
  /** The last closed candles (a few windows' worth), and the snapshot's window as of `windowAt` candles. */
  private recent: Candle[] = [];
  private window: Candle[] = [];
  private windowAt = 0;
  private volumeNtl24h = 0;
  private readonly dayCandles: number;
  private fundingRate = 0;
  readonly tape: ReplayTape = { t: [], open: [], high: [], low: [], close: [], pnl: [], qty: [] };

  /** Trade model: the next trade and book snapshot to replay, and the book as last recorded (none outside the recording). */
  private tradeNext = 0;
  private bookNext = 0;
  private book: BookLevels | undefined;
  /** Size our takers took from each level of `book` since it was recorded ("b:px" / "a:px"). */
  private taken = new Map<string, number>();
  /** Candles replayed from their range: the candle whose volume share is being used, and what is left of it. */
  private shareOf = -1;
  private shareLeft = 0;
  /** Scratch list of the orders one recorded trade can reach (reused: a week of tape is millions of trades). */
  private readonly exposed: VenueOrder[] = [];

  constructor(
    private readonly candles: CandleSeries,
    private readonly funding: readonly FundingRow[],
    private readonly o: ReplayVenueOptions,
    /** Recorded trades and books, where there are any: resting orders fill from them (trade-fill-model). */
    private readonly recorded?: MarketTape,
  ) {
    this.dayCandles = Math.max(1, Math.round(DAY_MS / candles.intervalMs));
    this.makerRate = dec(o.fees.maker);
    this.takerRate = dec(o.fees.taker);
  }

  /** The last closed candle's close as the exchange wrote it ("0" before the first). */
  lastClose(): string {
    return this.next > 0 ? this.candles.closeText(this.next - 1) : "0";
  }

  // ── market data ──────────────────────────────────────────────────────────────────────────

  async spec(instrument: string): Promise<InstrumentSpec> {
    return { instrument, szDecimals: this.o.szDecimals };
  }

  // snapshot, openOrders and fills are asked on every tick: the engine reads the *Now forms without
  // awaiting (ports.ts); the promise forms answer the same.
  snapshot(instrument: string): Promise<MarketSnapshot> {
    return Promise.resolve(this.snapshotNow(instrument));
  }

  snapshotNow(instrument: string): MarketSnapshot {
    const now = this.o.now();
    this.advanceTo(now);
    const i = this.next - 1;
    if (i < 0) return emptySnapshot(instrument, now);
    const book = this.book;
    if (book && book.bids.length > 0 && book.asks.length > 0) {
      const bid = book.bids[0]![0];
      const ask = book.asks[0]![0];
      return {
        ...emptySnapshot(instrument, now),
        mid: (bid + ask) / 2,
        bid,
        ask,
        book: {
          bids: book.bids.slice(0, 20).map(([px, sz]) => ({ px, sz })),
          asks: book.asks.slice(0, 20).map(([px, sz]) => ({ px, sz })),
        },
        fundingRate: this.fundingRate,
        volume24h: this.volumeNtl24h,
        candles: this.candleWindow(),
      };
    }
    const mid = this.candles.c[i]!;
    const half = tickOf(mid, this.o.szDecimals) / 2;
    const v = this.candles.v[i]!;
    return {
      instrument,
      timestampMs: now,
      mid,
      bid: mid - half,
      ask: mid + half,
      book: { bids: [{ px: mid - half, sz: v }], asks: [{ px: mid + half, sz: v }] },
      fundingRate: this.fundingRate,
      openInterest: 0,
      volume24h: this.volumeNtl24h,
      candles: this.candleWindow(),
      referenceFunding: {},
    };
  }

  /** The last `candleWindow` closed candles, oldest first (the same array until another closes). */
  private candleWindow(): Candle[] {
    if (this.windowAt !== this.next && this.o.candleWindow > 0) {
      const r = this.recent;
      this.window = r.slice(Math.max(0, r.length - this.o.candleWindow));
      this.windowAt = this.next;
    }
    return this.window;
  }

  // ── orders ───────────────────────────────────────────────────────────────────────────────

  async place(reqs: readonly PlaceRequest[]): Promise<PlaceOutcome[]> {
    const now = this.o.now();
    this.advanceTo(now);
    return reqs.map((r) => this.accept(r, now));
  }

  async cancel(_instrument: string, orders: readonly GatewayOrder[]): Promise<CancelResult> {
    const now = this.o.now();
    this.advanceTo(now);
    const failed: CancelResult["failed"] = [];
    for (const g of orders) {
      const o = this.orders.find((x) => x.oid === g.oid && x.cancelAtMs === Infinity);
      if (!o) failed.push({ order: g, message: REFUSAL.unknownOrder });
      else o.cancelAtMs = now + this.o.latencyMs;
    }
    return { failed };
  }

  openOrders(): Promise<GatewayOrder[]> {
    return Promise.resolve(this.openOrdersNow());
  }

  openOrdersNow(): GatewayOrder[] {
    this.advanceTo(this.o.now());
    const out: GatewayOrder[] = [];
    for (const o of this.orders) {
      if (o.cancelAtMs !== Infinity) continue;
      out.push({
        oid: o.oid,
        cloid: o.cloid,
        side: o.side,
        price: o.price,
        size: o.size,
        reduceOnly: o.reduceOnly,
      });
    }
    return out;
  }

  fills(instrument: string, sinceMs: number): Promise<GatewayFill[]> {
    return Promise.resolve(this.fillsNow(instrument, sinceMs));
  }

  fillsNow(_instrument: string, sinceMs: number): GatewayFill[] {
    this.advanceTo(this.o.now());
    const log = this.fillLog;
    let i = log.length;
    while (i > 0 && log[i - 1]!.timeMs >= sinceMs) i -= 1;
    return i === log.length ? [] : log.slice(i);
  }

  async position(): Promise<{ qty: string; entryPx: string }> {
    const l = this.o.ledger;
    return { qty: wire(l.qty), entryPx: wire(l.avg) };
  }

  private accept(r: PlaceRequest, now: number): PlaceOutcome {
    const px = Number(r.price);
    if (!isValidPrice(r.price, this.o.szDecimals)) return { status: "rejected", message: REFUSAL.tick };
    const size = dec(r.size);
    if (!size.gt(0) || size.decimalPlaces() > this.o.szDecimals)
      return { status: "rejected", message: REFUSAL.size };
    const q = this.o.ledger.qtyN;
    if (r.reduceOnly && (q === 0 || q > 0 === (r.side === "buy")))
      return { status: "rejected", message: REFUSAL.reduceOnly };
    if (!r.reduceOnly && px * size.toNumber() < MIN_ORDER_VALUE_USD)
      return { status: "rejected", message: REFUSAL.minValue };
    if (r.tif === "Alo" && this.next > 0) {
      const mid = this.candles.c[this.next - 1]!;
      const half = tickOf(mid, this.o.szDecimals) / 2;
      if (r.side === "buy" ? px >= mid + half : px <= mid - half)
        return { status: "rejected", message: REFUSAL.postOnly };
    }
    this.oidSeq += 1;
    const oid = String(this.oidSeq);
    this.orders.push({
      oid,
      cloid: r.cloid,
      side: r.side,
      tif: r.tif,
      reduceOnly: r.reduceOnly,
      px,
      price: r.price,
      size: r.size,
      sizeN: size.toNumber(),
      liveFromMs: now + this.o.latencyMs,
      cancelAtMs: Infinity,
      queue: -1,
      tag: r.tag,
    });
    // In flight until its first candle: the engine sees it as open (a live client would be waiting).
    return { status: "resting", oid };
  }

  // ── replay ───────────────────────────────────────────────────────────────────────────────

  /** Replays every candle that has closed by `now`. */
  private advanceTo(now: number): void {
    const s = this.candles;
    const interval = s.intervalMs;
    while (this.next < s.length && s.t[this.next]! + interval <= now) {
      this.replay(this.next);
      this.next += 1;
    }
  }

  private replay(i: number): void {
    const s = this.candles;
    const open = s.t[i]!;
    const end = open + s.intervalMs;
    // Funding settles at its hour, at the price of the candle it falls in; an hour inside a hole in the
    // candles (the position was held through it) at the first price after it, this candle's open.
    const f = this.funding;
    while (this.fundingNext < f.length && f[this.fundingNext]!.t < end) {
      const row = f[this.fundingNext]!;
      if (i > 0 || row.t >= open) this.o.ledger.applyFunding(s.openText(i), row.rate);
      this.fundingRate = Number(row.rate);
      this.fundingNext += 1;
    }
    const tape = this.recorded;
    if (tape?.covers(open, end)) this.tradeFromTape(tape, i, open, end);
    else {
      // Outside the recording (before, after, or in a hole): the last book is stale, prices are the candles'.
      this.book = undefined;
      if (this.orders.length > 0) this.trade(i, open);
    }
    const close = s.c[i]!;
    // Rolling 24 h notional volume.
    this.volumeNtl24h += s.v[i]! * close;
    const out = i - this.dayCandles;
    if (out >= 0) this.volumeNtl24h -= s.v[out]! * s.c[out]!;
    if (this.o.candleWindow > 0) {
      // Appended here; the snapshot copies its window out once per new candle (see candleWindow()).
      if (this.recent.length >= 4 * this.o.candleWindow)
        this.recent = this.recent.slice(this.recent.length - this.o.candleWindow);
      this.recent.push({ t: open, o: s.o[i]!, h: s.h[i]!, l: s.l[i]!, c: close, v: s.v[i]! });
    }
    if (open >= this.o.startMs) {
      const tape = this.tape;
      tape.t.push(open);
      tape.open.push(s.o[i]!);
      tape.high.push(s.h[i]!);
      tape.low.push(s.l[i]!);
      tape.close.push(close);
      tape.pnl.push(this.o.ledger.pnlAt(close));
      tape.qty.push(this.o.ledger.qtyN);
    }
  }

  /** What our fills may still take of candle i's volume (the participation cap). */
  private share(i: number): number {
    if (this.shareOf !== i) {
      this.shareOf = i;
      this.shareLeft = this.candles.v[i]! * this.o.participation;
    }
    return this.shareLeft;
  }

  /**
   * The candle's fills. Cancels that arrived by its open take effect first; then orders live in it
   * trade in the order the price would reach them: takers at the open, then resting limits nearest
   * the open first (a fill can make a later reduce-only order smaller or void). Together they take
   * at most the participation share of the candle's volume.
   */
  private trade(i: number, open: number): void {
    const s = this.candles;
    const bar: CandleBar = { o: s.o[i]!, h: s.h[i]!, l: s.l[i]! };
    const live: VenueOrder[] = [];
    for (let k = this.orders.length - 1; k >= 0; k--) {
      const o = this.orders[k]!;
      if (o.cancelAtMs <= open) this.orders.splice(k, 1);
      else if (o.liveFromMs <= open) live.push(o);
    }
    if (live.length === 0) return;
    const prevClose = i > 0 ? s.c[i - 1]! : Number.NaN;
    const askAt = this.touchAt(i, "buy");
    const bidAt = this.touchAt(i, "sell");
    const takes = (o: VenueOrder) => {
      // Resting since before this open and not marketable at the last close: a gap went through it.
      if (o.tif !== "Ioc" && o.liveFromMs < open && !crossesPrice(o.side, o.px, prevClose)) return false;
      return o.tif === "Ioc" || crossesPrice(o.side, o.px, o.side === "buy" ? askAt : bidAt);
    };
    const roles = live.map((o) => ({ o, taker: takes(o) }));
    roles.sort((a, b) => {
      if (a.taker !== b.taker) return a.taker ? -1 : 1;
      const d = Math.abs(a.o.px - bar.o) - Math.abs(b.o.px - bar.o);
      return d !== 0 ? d : Number(a.o.oid) - Number(b.o.oid);
    });
    for (const { o, taker } of roles) {
      if (taker && o.tif === "Alo") {
        // A post-only order that would take on arrival is refused by the exchange: it just goes.
        this.remove(o);
        continue;
      }
      const fill = taker
        ? takerFill(o.side, o.px, o.side === "buy" ? askAt : bidAt, this.o.slippageBps)
        : makerFill(o.side, o.px, bar);
      if (fill) this.shareLeft -= this.execute(o, fill.px, fill.liquidity, open, this.share(i));
      // What is left of an IOC lapses; a limit's rest rests.
      if (o.tif === "Ioc") this.remove(o);
    }
  }

  /**
   * The touch a taker meets at candle i's open: one tick from the price at that moment, the last
   * close (or, after a hole in the candles, the open) — the book the snapshot described and the sim
   * world's replay quotes.
   */
  private touchAt(i: number, side: Side): number {
    const s = this.candles;
    const contiguous = i > 0 && s.t[i - 1]! + s.intervalMs === s.t[i]!;
    const px = contiguous ? s.c[i - 1]! : s.o[i]!;
    const tick = tickOf(px, this.o.szDecimals);
    return side === "buy" ? px + tick : px - tick;
  }

  /**
   * A candle replayed from the recorded trades and books inside it, event by event in time order:
   * cancels and arrivals at their exact times, book snapshots (queue ahead shrinks with its level),
   * trades against resting orders with their queue. Takers walk the book recorded at their arrival.
   */
  private tradeFromTape(tape: MarketTape, i: number, open: number, end: number): void {
    for (;;) {
      const tt = this.tradeNext < tape.tradeCount ? tape.tradeT[this.tradeNext]! : Infinity;
      const bt = this.bookNext < tape.books.length ? tape.books[this.bookNext]!.t : Infinity;
      const t = Math.min(tt, bt);
      if (t >= end) break;
      this.arrive(i, t);
      if (bt <= tt) {
        this.book = tape.books[this.bookNext]!;
        this.bookNext += 1;
        if (this.taken.size > 0) this.taken = new Map();
        for (const o of this.orders) {
          if (o.queue <= 0) continue;
          // A level beyond the recorded depth keeps the queue it had.
          const shown = depthAt(this.book, o.side, o.px);
          if (shown !== undefined) o.queue = Math.min(o.queue, shown);
        }
        continue;
      }
      const k = this.tradeNext;
      this.tradeNext += 1;
      // A trade before the candle's open belongs to a candle already replayed from its range.
      if (t < open) continue;
      const ev = {
        px: tape.tradePx[k]!,
        sz: tape.tradeSz[k]!,
        taker: tape.tradeTakerBuys[k] ? "buy" : "sell",
      } as const;
      this.tradeResting(ev, t);
    }
    this.arrive(i, end - 1);
  }

  /**
   * One recorded trade against our resting orders on the side it hit, best price first (then the
   * oldest): the trade's size is shared, what one order took is not there for the next.
   */
  private tradeResting(ev: TradeEvent, t: number): void {
    const hit: Side = ev.taker === "buy" ? "sell" : "buy";
    const exposed = this.exposed;
    exposed.length = 0;
    for (const o of this.orders) if (o.side === hit && o.queue >= 0 && o.cancelAtMs > t) exposed.push(o);
    if (exposed.length === 0) return;
    if (exposed.length > 1)
      exposed.sort((a, b) =>
        a.px !== b.px ? (hit === "buy" ? b.px - a.px : a.px - b.px) : Number(a.oid) - Number(b.oid),
      );
    let ours = 0;
    for (const o of exposed) {
      const r = tradeAgainst(o.side, o.px, o.queue, o.sizeN, { ...ev, sz: ev.sz - ours });
      o.queue = r.queue;
      if (r.filled > 0) ours += this.execute(o, o.px, "maker", t, r.filled);
    }
  }

  /** Orders whose cancel has arrived by `t` leave; orders arrived by `t` join their level's queue, or take. */
  private arrive(i: number, t: number): void {
    if (!this.orders.some((o) => o.cancelAtMs <= t || (o.queue < 0 && o.liveFromMs <= t))) return;
    for (const o of [...this.orders]) {
      if (o.cancelAtMs <= t) {
        this.remove(o);
        continue;
      }
      if (o.queue >= 0 || o.liveFromMs > t) continue;
      const book = this.book;
      const opposite = book ? (o.side === "buy" ? book.asks : book.bids) : [];
      const crosses =
        opposite.length > 0 && (o.side === "buy" ? o.px >= opposite[0]![0] : o.px <= opposite[0]![0]);
      if (o.tif === "Ioc" || crosses) {
        if (o.tif === "Alo") {
          this.remove(o);
          continue;
        }
        if (book) {
          // Walk the recorded levels; what our earlier takers took of a level since it was recorded is gone.
          const tag = o.side === "buy" ? "a:" : "b:";
          for (const [px, sz] of opposite) {
            if (o.side === "buy" ? px > o.px : px < o.px) break;
            if (!this.orders.includes(o)) break;
            const key = tag + px;
            const left = sz - (this.taken.get(key) ?? 0);
            if (left <= 0) continue;
            const got = this.execute(o, px, "taker", t, left);
            if (got > 0) this.taken.set(key, (this.taken.get(key) ?? 0) + got);
          }
        } else {
          const fill = takerFill(o.side, o.px, this.touchAt(i, o.side), this.o.slippageBps);
          if (fill) this.shareLeft -= this.execute(o, fill.px, "taker", t, this.share(i));
        }
        if (o.tif === "Ioc") {
          this.remove(o);
          continue;
        }
      }
      if (this.orders.includes(o)) o.queue = sizeAhead(book, o.side, o.px);
    }
  }

  /** Fills up to `most` of the order at `px`; returns the size filled (0: none). */
  private execute(
    o: VenueOrder,
    px: number,
    liquidity: "maker" | "taker",
    timeMs: number,
    most = Infinity,
  ): number {
    const remaining = dec(o.size);
    let size = remaining;
    if (most < o.sizeN) {
      // Less than one lot of the trade (or of the candle's share) is left for us: nothing fills.
      size = wholeLots(most, this.o.szDecimals);
      if (size.isZero()) return 0;
      if (size.gt(remaining)) size = remaining;
    }
    if (o.reduceOnly) {
      const q = this.o.ledger.qty;
      if (q.isZero() || q.isPos() === (o.side === "buy")) return 0;
      if (size.gt(q.abs())) size = q.abs();
    }
    const price =
      liquidity === "maker" ? o.price : roundPrice(px, this.o.szDecimals, o.side === "buy" ? "up" : "down");
    const rate = liquidity === "maker" ? this.makerRate : this.takerRate;
    const fee = wire(dec(price).times(size).times(rate).toDecimalPlaces(8));
    this.fillSeq += 1;
    const id = `bt${this.fillSeq}`;
    const fill: GatewayFill = {
      id,
      oid: o.oid,
      cloid: o.cloid,
      side: o.side,
      price,
      size: wire(size),
      fee,
      timeMs,
    };
    this.fillLog.push(fill);
    this.o.ledger.applyFill({
      id,
      time_ms: timeMs,
      side: o.side,
      price,
      size: fill.size,
      fee,
      liquidity,
      ...(o.tag !== undefined ? { tag: o.tag } : {}),
    });
    const left = remaining.minus(size);
    if (left.gt(0)) {
      o.size = wire(left);
      o.sizeN = left.toNumber();
    } else this.remove(o);
    return size.toNumber();
  }

  private remove(o: VenueOrder): void {
    const k = this.orders.indexOf(o);
    if (k >= 0) this.orders.splice(k, 1);
  }
}

/** The price grid's step at this price: 5 significant figures, at most 6 − szDecimals decimals. */
function tickOf(px: number, szDecimals: number): number {
  const magnitude = Math.floor(Math.log10(px));
  const decimals = Math.max(0, Math.min(6 - szDecimals, 4 - magnitude));
  return 10 ** -decimals;
}

function emptySnapshot(instrument: string, now: number): MarketSnapshot {
  return {
    instrument,
    timestampMs: now,
    mid: 0,
    bid: 0,
    ask: 0,
    book: { bids: [], asks: [] },
    fundingRate: 0,
    openInterest: 0,
    volume24h: 0,
    candles: [],
    referenceFunding: {},
  };
}

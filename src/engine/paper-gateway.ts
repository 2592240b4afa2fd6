import { D, type Dec, dec, wire } from "../core/decimal.ts";
import type { MarketSnapshot, Side } from "../strategies/sdk.ts";
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
} from "./ports.ts";

export interface PaperOptions {
  /** Fee rates in bps of notional (Hyperliquid base tier: taker 4.5, maker 1.5). */
  takerFeeBps?: number;
  makerFeeBps?: number;
}

interface Resting extends GatewayOrder {
  instrument: string;
}

/**
 * The --dry-run order book: orders never leave the process. IOC orders (and the crossing part of a
 * Gtc) fill against the real book's levels up to their limit, as a taker; Alo orders that would cross
 * are rejected like the exchange does; resting orders fill at their own price, as a maker, once a
 * later snapshot shows the opposite touch at or through them. Wrap the live market data with
 * `watch()` so every snapshot the engine reads also advances the paper book.
 */
export class PaperGateway implements OrderGateway {
  private readonly resting: Resting[] = [];
  private readonly fillLog: (GatewayFill & { instrument: string })[] = [];
  private readonly positions = new Map<string, { qty: Dec; entry: Dec }>();
  private readonly last = new Map<string, MarketSnapshot>();
  private seq = 0;
  private readonly taker: number;
  private readonly maker: number;

  constructor(opts: PaperOptions = {}) {
    this.taker = opts.takerFeeBps ?? 4.5;
    this.maker = opts.makerFeeBps ?? 1.5;
  }

  /** Market data that also feeds this book. */
  watch(market: MarketDataPort): MarketDataPort {
    return {
      spec: (instrument: string): Promise<InstrumentSpec> => market.spec(instrument),
      snapshot: async (instrument: string) => {
        const s = await market.snapshot(instrument);
        this.observe(s);
        return s;
      },
    };
  }

  /** A new market state: resting orders the market traded through are filled. */
  observe(s: MarketSnapshot): void {
    this.last.set(s.instrument, s);
    if (!(s.mid > 0)) return;
    for (const o of [...this.resting]) {
      if (o.instrument !== s.instrument) continue;
      const px = Number(o.price);
      const through = o.side === "buy" ? s.ask > 0 && s.ask <= px : s.bid > 0 && s.bid >= px;
      if (!through) continue;
      this.resting.splice(this.resting.indexOf(o), 1);
      this.fill(o.instrument, o.oid, o.cloid, o.side, dec(o.price), dec(o.size), this.maker, s.timestampMs);
    }
  }

  async place(orders: readonly PlaceRequest[]): Promise<PlaceOutcome[]> {
    return orders.map((o) => this.placeOne(o));
  }

  private placeOne(o: PlaceRequest): PlaceOutcome {
    const s = this.last.get(o.instrument);
    if (!s || !(s.mid > 0)) return { status: "rejected", message: "no market data for the paper book" };
    const limit = dec(o.price);
    const levels = o.side === "buy" ? s.book.asks : s.book.bids;
    const crosses = (px: number) => (o.side === "buy" ? limit.gte(px) : limit.lte(px));
    const best = levels[0];
    if (o.tif === "Alo" && best && crosses(best.px)) {
      return { status: "rejected", message: "Post only order would have immediately matched" };
    }
    const oid = this.nextOid();
    let left = dec(o.size);
    if (o.reduceOnly) left = D.min(left, this.reducible(o.instrument, o.side));
    if (left.lte(0)) return { status: "rejected", message: "Reduce only order would increase position" };
    for (const l of levels) {
      if (left.lte(0) || !crosses(l.px)) break;
      const take = D.min(left, dec(l.sz));
      this.fill(o.instrument, oid, o.cloid, o.side, dec(l.px), take, this.taker, s.timestampMs);
      left = left.minus(take);
    }
    const filledAny = !left.eq(o.size);
    if (left.gt(0) && o.tif !== "Ioc") {
      this.resting.push({
        instrument: o.instrument,
        oid,
        cloid: o.cloid,
        side: o.side,
        price: o.price,
        size: wire(left),
        ...(o.reduceOnly ? { reduceOnly: true } : {}),
      });
      return { status: "resting", oid };
    }
    return filledAny
      ? { status: "filled", oid }
      : { status: "rejected", message: "IOC order could not match" };
  }

  async cancel(instrument: string, orders: readonly GatewayOrder[]): Promise<CancelResult> {
    for (const c of orders) {
      const i = this.resting.findIndex((r) => r.instrument === instrument && r.oid === c.oid);
      if (i >= 0) this.resting.splice(i, 1);
    }
    return { failed: [] };
  }

  async openOrders(instrument: string): Promise<GatewayOrder[]> {
    return this.resting
      .filter((r) => r.instrument === instrument)
      .map(({ instrument: _i, ...order }) => order);
  }

  async fills(instrument: string, sinceMs: number): Promise<GatewayFill[]> {
    return this.fillLog
      .filter((f) => f.instrument === instrument && f.timeMs >= sinceMs)
      .map(({ instrument: _i, ...f }) => f);
  }

  async position(instrument: string): Promise<{ qty: string; entryPx: string }> {
    const p = this.positions.get(instrument);
    return p ? { qty: wire(p.qty), entryPx: wire(p.entry) } : { qty: "0", entryPx: "0" };
  }

  private reducible(instrument: string, side: Side): Dec {
    const q = this.positions.get(instrument)?.qty ?? new D(0);
    return side === "buy" ? D.max(q.neg(), 0) : D.max(q, 0);
  }

  private fill(
    instrument: string,
    oid: string,
    cloid: Cloid | undefined,
    side: Side,
    px: Dec,
    sz: Dec,
    feeBps: number,
    timeMs: number,
  ): void {
    this.seq += 1;
    const fee = px.times(sz).times(feeBps).div(10_000).toDecimalPlaces(6);
    this.fillLog.push({
      instrument,
      id: `paper-fill-${this.seq}`,
      oid,
      ...(cloid ? { cloid } : {}),
      side,
      price: wire(px),
      size: wire(sz),
      fee: wire(fee),
      timeMs,
    });
    const p = this.positions.get(instrument) ?? { qty: new D(0), entry: new D(0) };
    const signed = side === "buy" ? sz : sz.neg();
    const next = p.qty.plus(signed);
    let entry = p.entry;
    if (next.isZero()) entry = new D(0);
    else if (p.qty.isZero() || p.qty.isNeg() !== next.isNeg()) entry = px;
    else if (next.abs().gt(p.qty.abs()))
      entry = p.entry.times(p.qty.abs()).plus(px.times(sz)).div(next.abs()).toDecimalPlaces(10);
    this.positions.set(instrument, { qty: next, entry });
  }

  private nextOid(): string {
    this.seq += 1;
    return `paper-${this.seq}`;
  }
}

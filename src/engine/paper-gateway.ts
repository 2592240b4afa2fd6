import { D, type Dec, dec, num, wire } from "../core/decimal.ts";
import { BASE_TIER, type FillFeeRates, fillFee, fillFeeRates } from "../sim/venue/fee-rates.ts";
import { mulDiv, parseScaled } from "../sim/venue/fixed.ts";
import {
  belowBackstop,
  belowMaintenance,
  liquidationLimit,
  liquidationOrderSize,
  markBoundPrice,
  PARTIAL_LIQUIDATION_COOLDOWN_MS,
} from "../sim/venue/liquidation-rules.ts";
import { type MarginSpec, maintenanceMargin } from "../sim/venue/margin.ts";
import {
  aloRefusal,
  checkOrder,
  freeCollateral,
  haltedRefusal,
  iocNoMatchText,
  isolatedMarginReleased,
  isolatedOpenMargin,
  type MarginedPosition,
  marginRefusal,
  orderMargin,
  restingMarginReleased,
  unrealizedPnl,
  validPx,
} from "../sim/venue/order-rules.ts";
import {
  triggeredMarketLimit,
  triggeredReduceOnlySize,
  triggerPriceRefusal,
  triggerReached,
  triggersAbove,
} from "../sim/venue/trigger-rules.ts";
import type { BookLevel, MarketSnapshot, Side } from "../strategies/sdk.ts";
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
  TradePrint,
} from "./ports.ts";

const MICRO = 1_000_000;
const HOUR_MS = 3_600_000;

export interface PaperOptions {
  /**
   * What each fill costs, fractions of its notional (fee-rates.ts: the account's own rates on the
   * market, as live); default a new account's on the main dex (taker 0.045 %, maker 0.015 %).
   */
  fees?: FillFeeRates;
  /**
   * The builder fee live orders carry (the configured builder, where the account approved it), a
   * fraction of notional: charged on every fill but a liquidation's, beside the exchange fee and
   * rounded apart as the venue does. Default none.
   */
  builderFeeRate?: string;
  /** The paper account's USDC (default: the sim world's starting balance, 10,000). */
  balanceUsd?: string;
  /**
   * USDC of that value already held as margin by the real account's own positions and orders (a
   * dry run beside them can only use the rest), default 0.
   */
  reservedUsd?: string;
  /** Leverage its orders and positions are margined at (the exchange's default for a new account: 20×). */
  leverage?: number;
  /**
   * Isolated margin (the account's setting on the market, or a market that allows only isolated):
   * each position holds its own margin, taken from the balance as it opens, and its PnL does not
   * free collateral for other orders, as on the exchange (default: cross).
   */
  isolated?: boolean;
}

/** What the exchange's order rules need to know of an instrument. */
interface PaperInstrument {
  szDecimals: number;
  /** The exchange's asset id (refusal texts end in ` asset=<id>`); unknown: the texts go without it. */
  asset?: number;
  /** Delisted: the exchange halts the market and refuses every order on it. */
  delisted?: boolean;
  /**
   * The market's max leverage and margin table (meta): its maintenance margin follows them. Unknown:
   * the book cannot tell when the exchange would liquidate, and does not.
   */
  maxLeverage?: number;
  marginTableId?: number;
}

/** One hourly funding payment applied to the paper account. */
interface PaperFunding {
  instrument: string;
  timeMs: number;
  /** Signed USDC received (negative: paid). */
  usdc: string;
  fundingRate: number;
}

interface Resting extends GatewayOrder {
  instrument: string;
  /** Margin it holds for the part that would increase the position, micro-USDC (as the venue holds it). */
  reserved: number;
  /** Displayed size at our price that was there before us and has not traded or left since. */
  queueAhead: Dec;
  /** Prints before this time happened before the order existed. */
  sinceMs: number;
}

/**
 * A market trigger (TP/SL) order as the exchange's wire carries it (src/exchange/actions.ts
 * `buildStopOrder`): its limit price, size and trigger price as sent.
 */
export interface TriggerRequest {
  instrument: string;
  side: Side;
  price: string;
  size: string;
  triggerPx: string;
  tpsl: "tp" | "sl";
  reduceOnly: boolean;
  cloid: Cloid;
}

export type TriggerOutcome = { status: "resting"; oid: number } | { status: "rejected"; message: string };

/** A trigger order waiting in the paper book for the mark (here the mid). */
interface PaperTrigger {
  instrument: string;
  oid: number;
  cloid: Cloid;
  side: Side;
  /** Size (0: the whole position when it fires) and trigger price, as decimals. */
  size: string;
  triggerPx: string;
  reduceOnly: boolean;
}

interface WaitingTrigger extends PaperTrigger {
  /** The trigger price and size on the venue's integer scales. */
  px: number;
  lots: number;
  above: boolean;
}

/** What our takers have used of one displayed level, and the size the level showed then. */
interface Taken {
  shown: number;
  used: Dec;
}

/**
 * The --dry-run order book: orders never leave the process, and fill no better than the market
 * allows.
 * - Takers (IOC, and the crossing part of a Gtc) walk the real book's levels up to their limit and use
 *   that liquidity up: a later order sees only what is left, until the book refreshes that level
 *   (a level that still shows the same size is taken to be the same, already used, liquidity).
 * - Alo orders that would cross are rejected like the exchange does.
 * - Its own resting orders are in the book its later orders meet, as on the venue: an Alo order
 *   that would cross one is rejected, and a taker that reaches one cancels it instead of trading
 *   with it (the exchange's self-trade prevention) and goes on behind it.
 * - Resting orders join the back of their price level: they fill, at their own price and as a maker,
 *   from trades on the market's tape at or through that price, after the size displayed ahead of
 *   them when they were placed has traded (or left the book); and when the book moves through them,
 *   from the size then displayed at or through their price (never more).
 * Wrap the live market data with `watch()` so every snapshot the engine reads also advances the
 * paper book (and, while one of its orders rests there, the market's trades, where the market data
 * offers them).
 */
export class PaperGateway implements OrderGateway {
  private readonly resting: Resting[] = [];
  private readonly waiting: WaitingTrigger[] = [];
  private readonly fillLog: (GatewayFill & { instrument: string })[] = [];
  private readonly positions = new Map<string, PaperPosition>();
  private readonly last = new Map<string, MarketSnapshot>();
  private readonly taken = new Map<string, Map<string, Taken>>();
  /** Per instrument, the latest tape window read (its trade ids) and the book time it was read with. */
  private readonly tape = new Map<string, { ids: Set<string>; atMs: number }>();
  private readonly instruments = new Map<string, PaperInstrument>();
  /** What each instrument's maintenance margin follows, where its meta is known. */
  private readonly marginSpecs = new Map<string, MarginSpec>();
  /** The hour (ms / 1h) of the last snapshot per instrument: funding is paid as an hour closes. */
  private readonly fundedHour = new Map<string, number>();
  private readonly fundingLog: PaperFunding[] = [];
  /** End of the cooldown after a partial liquidation (exchange time, ms). */
  private liquidationCooldownUntil = 0;
  private seq = 0;
  private readonly taker: Dec;
  private readonly maker: Dec;
  private readonly builder: Dec;
  private readonly leverage: number;
  private readonly isolated: boolean;
  /** USDC: deposits, realized PnL, fees and funding, less the margin isolated positions hold. */
  private cash: Dec;
  private readonly reserved: Dec;

  constructor(opts: PaperOptions = {}) {
    const fees = opts.fees ?? fillFeeRates(BASE_TIER);
    this.taker = dec(fees.taker);
    this.maker = dec(fees.maker);
    this.builder = dec(opts.builderFeeRate ?? "0");
    this.leverage = opts.leverage ?? 20;
    this.isolated = opts.isolated ?? false;
    this.cash = dec(opts.balanceUsd ?? "10000");
    this.reserved = dec(opts.reservedUsd ?? "0");
  }

  /**
   * Tell the book an instrument's lot size, asset id (`watch` learns both from `spec`) and whether the
   * exchange has delisted it (a market data source never offers a delisted market to trade).
   */
  describe(instrument: string, spec: PaperInstrument): void {
    this.instruments.set(instrument, spec);
    if (spec.maxLeverage)
      this.marginSpecs.set(instrument, {
        maxLeverage: spec.maxLeverage,
        ...(spec.marginTableId !== undefined ? { marginTableId: spec.marginTableId } : {}),
      });
  }

  /** What the book was told of an instrument (undefined: nothing yet). */
  described(instrument: string): PaperInstrument | undefined {
    return this.instruments.get(instrument);
  }

  /**
   * The paper account's USDC balance (realized PnL, fees and funding included; uPnL not), the margin
   * isolated positions hold included.
   */
  balance(): string {
    let total = this.cash;
    for (const p of this.positions.values()) if (p.isolated) total = total.plus(usdOf(p.isoMargin));
    return wire(total);
  }

  /** Funding applied so far, oldest first. */
  fundings(): PaperFunding[] {
    return [...this.fundingLog];
  }

  /** Market data that also feeds this book: each snapshot, and the trades since the last one. */
  watch(market: MarketDataPort): MarketDataPort {
    const trades = market.trades?.bind(market);
    return {
      spec: async (instrument: string): Promise<InstrumentSpec> => {
        const spec = await market.spec(instrument);
        this.describe(spec.instrument, {
          szDecimals: spec.szDecimals,
          ...(spec.asset !== undefined ? { asset: spec.asset } : {}),
          ...(spec.maxLeverage !== undefined ? { maxLeverage: spec.maxLeverage } : {}),
          ...(spec.marginTableId !== undefined ? { marginTableId: spec.marginTableId } : {}),
        });
        return spec;
      },
      snapshot: async (instrument: string) => {
        // The tape fills only an order of ours resting there: with none, it is not read (20 and more).
        const tapeRead = trades && this.resting.some((o) => o.instrument === instrument);
        const [s, prints] = await Promise.all([
          market.snapshot(instrument),
          tapeRead ? trades(instrument) : Promise.resolve(undefined),
        ]);
        if (prints) this.observeTrades(s.instrument, prints, s.timestampMs);
        this.observe(s);
        return this.withOwnOrders(s);
      },
      ...(trades ? { trades } : {}),
      ...(market.delisted ? { delisted: (instrument: string) => market.delisted!(instrument) } : {}),
    };
  }

  /**
   * A new book: what our takers used is forgotten where a level changed; queues ahead only shrink.
   * Then the mark (the mid: the paper book has no mark) is checked against maintenance margin, and
   * what the exchange would liquidate is liquidated; then trigger orders the mark reached fire, in
   * the venue's order (liquidation, then triggers).
   */
  observe(s: MarketSnapshot): void {
    this.applyFunding(s);
    this.last.set(s.instrument, s);
    const taken = this.taken.get(s.instrument);
    if (taken) {
      for (const [key, t] of taken) {
        const [sideKey, px] = key.split(":") as ["b" | "a", string];
        const level = (sideKey === "b" ? s.book.bids : s.book.asks).find((l) => l.px === Number(px));
        if (!level || level.sz !== t.shown) taken.delete(key);
      }
    }
    for (const o of this.resting) {
      if (o.instrument !== s.instrument || o.queueAhead.isZero()) continue;
      const bids = o.side === "buy";
      const shown = displayedAt(bids ? s.book.bids : s.book.asks, Number(o.price), bids);
      if (shown !== undefined) o.queueAhead = D.min(o.queueAhead, dec(shown));
    }
    for (const o of [...this.resting]) if (o.instrument === s.instrument) this.crossedByBook(o, s);
    this.liquidateIfDue(s);
    this.fireTriggers(s);
  }

  /**
   * Liquidation by the sim venue's rules (src/sim/venue/liquidation-rules.ts, margin.ts): an isolated
   * position whose margin plus uPnL, or a cross account whose equity, falls below maintenance margin
   * sends reduce-only market orders into the book it reads (20 % at a time above $100k, then a 30 s
   * cooldown), and the backstop takes the rest at the mark below 2/3 of maintenance. The margin the
   * real account's own positions hold counts as their maintenance (more than it is: never kinder).
   */
  private liquidateIfDue(s: MarketSnapshot): void {
    const p = this.positions.get(s.instrument);
    if (!p || !(s.mid > 0)) return;
    if (p.isolated) {
      const mark = this.markOf(s.instrument);
      const maint = this.maintenanceOf(s.instrument, p, mark);
      if (maint !== undefined && belowMaintenance(p.isoMargin + unrealizedPnl(p, mark), maint))
        this.liquidate([s.instrument], s.timestampMs);
      return;
    }
    const cross = this.crossHealth();
    if (cross && belowMaintenance(cross.equity, cross.maint))
      this.liquidate(cross.instruments, s.timestampMs);
  }

  /** The mark, in price units, an instrument is liquidated at: its last mid. */
  private markOf(instrument: string): number {
    return toScaled(dec(this.last.get(instrument)?.mid ?? 0), this.scales(instrument).pxDec);
  }

  /** Maintenance margin (micro-USDC) of a position at `mark`; undefined when the market's tiers are unknown. */
  private maintenanceOf(instrument: string, p: PaperPosition, mark: number): number | undefined {
    const spec = this.marginSpecs.get(instrument);
    return spec ? maintenanceMargin(spec, Math.abs(p.szi) * mark) : undefined;
  }

  /** The cross account's equity and maintenance (micro-USDC) over its cross positions, where all are known. */
  private crossHealth(): { equity: number; maint: number; instruments: string[] } | undefined {
    let equity = this.cash.minus(this.reserved).times(MICRO).floor().toNumber();
    let maint = 0;
    const instruments: string[] = [];
    for (const [instrument, p] of this.positions) {
      if (p.isolated) continue;
      const mark = this.markOf(instrument);
      const m = this.maintenanceOf(instrument, p, mark);
      if (m === undefined || mark <= 0) return undefined;
      equity += unrealizedPnl(p, mark);
      maint += m;
      instruments.push(instrument);
    }
    return instruments.length > 0 ? { equity, maint, instruments } : undefined;
  }

  /** Liquidate these positions (one isolated, or every cross one) as the venue does (liquidation.ts). */
  private liquidate(instruments: string[], now: number): void {
    const isolated = this.positions.get(instruments[0]!)?.isolated === true;
    const cashBefore = this.cash;
    // The exchange cancels the orders the liquidated margin backs: all of them on a cross account.
    for (const o of [...this.resting])
      if (!isolated || o.instrument === instruments[0]) this.resting.splice(this.resting.indexOf(o), 1);
    for (const t of [...this.waiting])
      if (!isolated || t.instrument === instruments[0]) this.waiting.splice(this.waiting.indexOf(t), 1);
    const cooling = this.liquidationCooldownUntil > now;
    let partial = false;
    for (const instrument of instruments) {
      const p = this.positions.get(instrument)!;
      const mark = this.markOf(instrument);
      const abs = Math.abs(p.szi);
      const order = liquidationOrderSize(abs, abs * mark, cooling);
      if (order.partial) partial = true;
      this.liquidationIntoBook(instrument, p.szi < 0, order.sz, mark, now);
    }
    if (partial) this.liquidationCooldownUntil = now + PARTIAL_LIQUIDATION_COOLDOWN_MS;
    if (this.belowBackstop(instruments)) for (const i of instruments) this.backstop(i, now);
    const gone = instruments.every((i) => !this.positions.has(i));
    // An isolated loss is capped at its margin, a cross one at the account: the backstop absorbs the rest.
    if (isolated && gone && this.cash.lt(cashBefore)) this.cash = cashBefore;
    if (!isolated && gone && this.cash.lt(this.reserved)) this.cash = this.reserved;
  }

  private belowBackstop(instruments: string[]): boolean {
    const p = this.positions.get(instruments[0]!);
    if (p?.isolated) {
      const mark = this.markOf(instruments[0]!);
      const maint = this.maintenanceOf(instruments[0]!, p, mark);
      return maint !== undefined && belowBackstop(p.isoMargin + unrealizedPnl(p, mark), maint);
    }
    const cross = this.crossHealth();
    return cross !== undefined && belowBackstop(cross.equity, cross.maint);
  }

  /**
   * A liquidation's reduce-only market order: it walks the book up to 2 % through the mark, a level
   * better than the mark filling at the mark, and uses up that liquidity like any taker.
   */
  private liquidationIntoBook(
    instrument: string,
    isBuy: boolean,
    lots: number,
    mark: number,
    now: number,
  ): void {
    const s = this.last.get(instrument)!;
    const { pxDec, szDec } = this.scales(instrument);
    const limit = liquidationLimit(isBuy, mark);
    const liquidation = { method: "market" as const, markPx: wire(new D(mark).div(10 ** pxDec)) };
    const taken = this.takenOf(instrument);
    const oid = this.nextOid();
    let left = new D(lots).div(10 ** szDec);
    for (const l of isBuy ? s.book.asks : s.book.bids) {
      const lvl = toScaled(dec(l.px), pxDec);
      if (left.lte(0) || (isBuy ? lvl > limit : lvl < limit)) break;
      const key = `${isBuy ? "a" : "b"}:${l.px}`;
      const t = taken.get(key) ?? { shown: l.sz, used: new D(0) };
      const available = dec(l.sz).minus(t.used);
      if (available.lte(0)) continue;
      const take = D.min(left, available);
      const px = new D(markBoundPrice(isBuy, limit, lvl, mark)).div(10 ** pxDec);
      const side: Side = isBuy ? "buy" : "sell";
      this.fill(instrument, oid, undefined, side, px, take, this.taker, now, liquidation);
      taken.set(key, { shown: l.sz, used: t.used.plus(take) });
      left = left.minus(take);
    }
  }

  /** The backstop liquidator takes what is left of the position at the mark, without a fee. */
  private backstop(instrument: string, now: number): void {
    const p = this.positions.get(instrument);
    if (!p) return;
    const { pxDec } = this.scales(instrument);
    const mark = this.markOf(instrument);
    const markPx = new D(mark).div(10 ** pxDec);
    const liquidation = { method: "backstop" as const, markPx: wire(markPx) };
    const side: Side = p.szi < 0 ? "buy" : "sell";
    this.fill(instrument, this.nextOid(), undefined, side, markPx, p.qty.abs(), new D(0), now, liquidation);
  }

  /**
   * The book as the strategy would read it on the venue: its own resting orders are in it (they
   * set the touch and the mid it quotes around, as they do live).
   */
  withOwnOrders(s: MarketSnapshot): MarketSnapshot {
    const own = this.resting.filter((o) => o.instrument === s.instrument);
    if (own.length === 0 || !(s.mid > 0)) return s;
    const merge = (levels: readonly BookLevel[], side: Side): BookLevel[] => {
      const byPx = new Map(levels.map((l) => [l.px, l.sz]));
      for (const o of own) {
        if (o.side !== side) continue;
        const px = Number(o.price);
        byPx.set(px, num(dec(byPx.get(px) ?? 0).plus(o.size)));
      }
      const out = [...byPx].map(([px, sz]) => ({ px, sz }));
      return out
        .sort((a, b) => (side === "buy" ? b.px - a.px : a.px - b.px))
        .slice(0, Math.max(levels.length, 1));
    };
    const bids = merge(s.book.bids, "buy");
    const asks = merge(s.book.asks, "sell");
    const bid = bids[0]?.px ?? 0;
    const ask = asks[0]?.px ?? 0;
    // A crossed merge cannot happen: orders through the touch were filled by observe() first.
    const mid = bid > 0 && ask > 0 ? num(dec(bid).plus(ask).div(2)) : s.mid;
    return { ...s, bid, ask, mid, book: { bids, asks } };
  }

  /**
   * The book moved through a resting order: on the venue the orders now displayed at or through its
   * price would have traded with it (it would be the best price there), so it fills — at its own
   * price, as a maker — from that displayed size, which is then used up like a taker's.
   */
  private crossedByBook(o: Resting, s: MarketSnapshot): void {
    const limit = Number(o.price);
    const buy = o.side === "buy";
    const opposite = buy ? s.book.asks : s.book.bids;
    const taken = this.takenOf(o.instrument);
    let left = dec(o.size);
    for (const l of opposite) {
      if (left.lte(0) || (buy ? l.px > limit : l.px < limit)) break;
      const key = `${buy ? "a" : "b"}:${l.px}`;
      const t = taken.get(key) ?? { shown: l.sz, used: new D(0) };
      const available = dec(l.sz).minus(t.used);
      if (available.lte(0)) continue;
      const q = D.min(left, available);
      taken.set(key, { shown: l.sz, used: t.used.plus(q) });
      this.restingFilled(o, q, left);
      left = left.minus(q);
      this.fill(o.instrument, o.oid, o.cloid, o.side, dec(o.price), q, this.maker, s.timestampMs);
    }
    if (left.lte(0)) this.resting.splice(this.resting.indexOf(o), 1);
    else o.size = wire(left);
  }

  /** `q` of a resting order's `size` filled: the margin held for that part is released, as on the venue. */
  private restingFilled(o: Resting, q: Dec, size: Dec): void {
    if (o.reserved === 0) return;
    const { szDec } = this.scales(o.instrument);
    o.reserved -= restingMarginReleased(o.reserved, toScaled(q, szDec), toScaled(size, szDec));
  }

  /**
   * The market's recent trades (a window of the tape; ids already seen are skipped), read with the
   * book of time `atMs` (default: the last book seen). A print at or through a resting order's price
   * first uses up the size queued ahead of it, then fills it.
   */
  observeTrades(
    instrument: string,
    prints: readonly TradePrint[],
    atMs = this.last.get(instrument)?.timestampMs ?? 0,
  ): void {
    const before = this.tape.get(instrument);
    this.tape.set(instrument, { ids: new Set(prints.map((p) => p.id)), atMs });
    const fresh = prints.filter((p) => !before?.ids.has(p.id)).sort((a, b) => a.timeMs - b.timeMs);
    for (const p of fresh) this.applyPrint(instrument, p, before?.atMs);
  }

  /**
   * Whether a print traded after the order was placed: after the book it was placed on, or in that
   * book's millisecond where a tape read with (or after) that book had not shown it yet.
   */
  private tradedAfter(p: TradePrint, o: Resting, tapeAtMs: number | undefined): boolean {
    return (
      p.timeMs > o.sinceMs || (p.timeMs === o.sinceMs && tapeAtMs !== undefined && tapeAtMs >= o.sinceMs)
    );
  }

  private applyPrint(instrument: string, p: TradePrint, tapeAtMs: number | undefined): void {
    // Our orders the print reaches, best price first, then oldest.
    const reached = this.resting
      .filter(
        (o) =>
          o.instrument === instrument &&
          this.tradedAfter(p, o, tapeAtMs) &&
          (o.side === "buy"
            ? p.side === "sell" && p.px <= Number(o.price)
            : p.side === "buy" && p.px >= Number(o.price)),
      )
      .sort((a, b) =>
        a.side === "buy" ? Number(b.price) - Number(a.price) : Number(a.price) - Number(b.price),
      );
    let volume = dec(p.sz);
    for (const o of reached) {
      if (volume.lte(0)) break;
      const queued = D.min(o.queueAhead, volume);
      o.queueAhead = o.queueAhead.minus(queued);
      volume = volume.minus(queued);
      const q = D.min(volume, dec(o.size));
      if (q.lte(0)) continue;
      volume = volume.minus(q);
      const left = dec(o.size).minus(q);
      this.restingFilled(o, q, dec(o.size));
      this.fill(o.instrument, o.oid, o.cloid, o.side, dec(o.price), q, this.maker, p.timeMs);
      if (left.lte(0)) this.resting.splice(this.resting.indexOf(o), 1);
      else o.size = wire(left);
    }
  }

  async place(orders: readonly PlaceRequest[]): Promise<PlaceOutcome[]> {
    return orders.map((o) => this.placeOne(o));
  }

  private placeOne(o: PlaceRequest): PlaceOutcome {
    // A halted market is refused first, as the exchange does: it has no book to read anyway.
    const halted = haltedRefusal(this.instruments.get(o.instrument)?.delisted === true);
    if (halted) return { status: "rejected", message: halted };
    const s = this.last.get(o.instrument);
    if (!s || !(s.mid > 0)) return { status: "rejected", message: "no market data for the paper book" };
    const refusal = this.refusal(o, s);
    if (refusal) return { status: "rejected", message: refusal };
    const limit = dec(o.price);
    const oid = this.nextOid();
    let left = dec(o.size);
    if (o.reduceOnly) left = D.min(left, this.reducible(o.instrument, o.side));
    // What a reduce-only order was cut to: nothing filled until `left` drops below it.
    const wanted = left;
    left = this.walkAsTaker(o, oid, limit, left, s);
    const filledAny = !left.eq(wanted);
    if (left.gt(0) && o.tif !== "Ioc") {
      const own = o.side === "buy" ? s.book.bids : s.book.asks;
      const { pxDec, szDec } = this.scales(o.instrument);
      this.resting.push({
        instrument: o.instrument,
        // Held from the position after the crossing part filled, as the venue does when it rests.
        reserved: o.reduceOnly
          ? 0
          : orderMargin(
              this.lots(o.instrument),
              o.side === "buy",
              toScaled(limit, pxDec),
              toScaled(left, szDec),
              this.leverage,
            ),
        oid,
        cloid: o.cloid,
        side: o.side,
        price: o.price,
        size: wire(left),
        queueAhead: dec(displayedAt(own, Number(o.price), o.side === "buy") ?? 0),
        sinceMs: s.timestampMs,
        ...(o.reduceOnly ? { reduceOnly: true } : {}),
      });
      return { status: "resting", oid };
    }
    return filledAny
      ? { status: "filled", oid }
      : { status: "rejected", message: this.text(o.instrument, iocNoMatchText) };
  }

  /**
   * Match a taker against the displayed book up to its limit, using that liquidity up, as the venue
   * matches it; returns the size left. Its own resting orders on the other side sit in that book
   * behind the size queued ahead of them: a taker that gets to one cancels it instead of trading
   * with it (the exchange's self-trade prevention, as the sim venue does it) and goes on behind it.
   */
  private walkAsTaker(
    o: PlaceRequest,
    oid: string,
    limit: Dec,
    size: Dec,
    s: MarketSnapshot,
    /** A fired trigger's mark (price units): a level better than it fills at it, as on the venue. */
    markBound?: number,
  ): Dec {
    const buy = o.side === "buy";
    const { pxDec } = this.scales(o.instrument);
    const fillPx = (px: number): Dec =>
      markBound === undefined
        ? dec(px)
        : new D(markBoundPrice(buy, toScaled(limit, pxDec), toScaled(dec(px), pxDec), markBound)).div(
            10 ** pxDec,
          );
    const crosses = (px: number) => (buy ? limit.gte(px) : limit.lte(px));
    const levels = buy ? s.book.asks : s.book.bids;
    const own = this.resting.filter(
      (r) => r.instrument === o.instrument && r.side !== o.side && crosses(Number(r.price)),
    );
    const prices = [
      ...new Set([...levels.map((l) => l.px).filter(crosses), ...own.map((r) => Number(r.price))]),
    ];
    prices.sort((a, b) => (buy ? a - b : b - a));
    const taken = this.takenOf(o.instrument);
    let left = size;
    for (const px of prices) {
      if (left.lte(0)) break;
      const level = levels.find((l) => l.px === px);
      const key = `${buy ? "a" : "b"}:${px}`;
      const t = level ? (taken.get(key) ?? { shown: level.sz, used: new D(0) }) : undefined;
      let available = level && t ? dec(level.sz).minus(t.used) : new D(0);
      const mine = own.filter((r) => Number(r.price) === px).sort((a, b) => a.queueAhead.cmp(b.queueAhead));
      const take = (most: Dec): void => {
        const q = D.min(left, most, available);
        if (q.lte(0) || !level || !t) return;
        this.fill(o.instrument, oid, o.cloid, o.side, fillPx(px), q, this.taker, s.timestampMs);
        t.used = t.used.plus(q);
        taken.set(key, t);
        available = available.minus(q);
        left = left.minus(q);
        // What traded was queued ahead of our own orders at this price.
        for (const r of mine) r.queueAhead = D.max(r.queueAhead.minus(q), 0);
      };
      for (const r of mine) {
        take(r.queueAhead);
        if (left.lte(0)) break;
        this.resting.splice(this.resting.indexOf(r), 1);
      }
      take(available);
    }
    return left;
  }

  /**
   * The exchange's refusal of this order, by the sim venue's own rules (src/sim/venue/order-rules.ts):
   * tick, lot, zero size, the 80 % band around the mark (here the mid), reduce-only, the $10
   * minimum, post-only crossing, and the initial margin against the paper account's free collateral.
   */
  private refusal(o: PlaceRequest, s: MarketSnapshot): string | null {
    const spec = this.instruments.get(o.instrument);
    if (!spec) return `no instrument spec for ${o.instrument} in the paper book`;
    const pxDec = 6 - spec.szDecimals;
    const scale = 10 ** pxDec;
    const asset = spec.asset ?? -1;
    const isBuy = o.side === "buy";
    const szi = this.lots(o.instrument);
    const checked = checkOrder({
      asset,
      pxDec,
      szDec: spec.szDecimals,
      px: o.price,
      sz: o.size,
      isBuy,
      reduceOnly: o.reduceOnly,
      trigger: false,
      szi,
      reference: Math.round(s.mid * scale),
    });
    if ("error" in checked) return this.unsuffixed(spec, checked.error);
    if (o.tif === "Alo") {
      // The touch as the venue shows it now: levels our own takers used up are gone there, and our
      // own resting orders are in it.
      const bid = this.touch(o.instrument, s.book.bids, "buy");
      const ask = this.touch(o.instrument, s.book.asks, "sell");
      const cross = aloRefusal(
        isBuy,
        checked.px,
        bid === undefined ? undefined : Math.round(bid * scale),
        ask === undefined ? undefined : Math.round(ask * scale),
        pxDec,
        asset,
      );
      if (cross) return this.unsuffixed(spec, cross);
    }
    if (!o.reduceOnly) {
      const need = orderMargin(szi, isBuy, checked.px, checked.sz, this.leverage);
      const short = marginRefusal(need, this.availableMicro(), asset);
      if (short) return this.unsuffixed(spec, short);
    }
    return null;
  }

  /**
   * Best price of one side of the book as the venue shows it: the displayed levels still showing
   * size our takers have not used, and our own resting orders on that side.
   */
  private touch(instrument: string, levels: readonly BookLevel[], side: Side): number | undefined {
    const better = (a: number, b: number) => (side === "buy" ? a > b : a < b);
    let best: number | undefined;
    const taken = this.taken.get(instrument);
    for (const l of levels) {
      const used = taken?.get(`${side === "buy" ? "b" : "a"}:${l.px}`)?.used;
      if (!used || dec(l.sz).gt(used)) {
        best = l.px;
        break;
      }
    }
    for (const r of this.resting) {
      const px = Number(r.price);
      if (r.instrument === instrument && r.side === side && (best === undefined || better(px, best)))
        best = px;
    }
    return best;
  }

  /** A refusal text without its ` asset=` suffix when the asset id is not known. */
  private unsuffixed(spec: PaperInstrument, text: string): string {
    return spec.asset === undefined ? text.replace(/ asset=-1$/, "") : text;
  }

  private text(instrument: string, of: (asset: number) => string): string {
    const spec = this.instruments.get(instrument);
    return spec ? this.unsuffixed(spec, of(spec.asset ?? -1)) : of(-1).replace(/ asset=-1$/, "");
  }

  /** The position in lots of the instrument's size grid. */
  private lots(instrument: string): number {
    return this.positions.get(instrument)?.szi ?? 0;
  }

  /** Price and size decimals of an instrument the book has been told about. */
  private scales(instrument: string): { pxDec: number; szDec: number } {
    const spec = this.instruments.get(instrument);
    if (!spec) throw new Error(`no instrument spec for ${instrument} in the paper book`);
    return { pxDec: 6 - spec.szDecimals, szDec: spec.szDecimals };
  }

  /**
   * Free collateral in micro-USDC, by the venue's own rule (order-rules.ts `freeCollateral`): cash −
   * the margin the real account already holds + each cross position's uPnL less its initial margin
   * at the mid − the margin resting orders hold. Isolated positions hold their margin out of cash.
   */
  private availableMicro(): number {
    const cross: { position: MarginedPosition; mark: number }[] = [];
    for (const [instrument, p] of this.positions) {
      const mid = this.last.get(instrument)?.mid;
      if (p.isolated || !mid) continue;
      cross.push({ position: p, mark: toScaled(dec(mid), this.scales(instrument).pxDec) });
    }
    let held = 0;
    for (const r of this.resting) held += r.reserved;
    const cash = this.cash.minus(this.reserved).times(MICRO).floor().toNumber();
    return freeCollateral(cash, cross, held);
  }

  /**
   * Hourly funding on the open position, at the rate the market data shows (the network's current
   * hourly rate) and the mid, paid as each hour closes: longs pay a positive rate.
   */
  private applyFunding(s: MarketSnapshot): void {
    const hour = Math.floor(s.timestampMs / HOUR_MS);
    const prev = this.fundedHour.get(s.instrument);
    this.fundedHour.set(s.instrument, hour);
    if (prev === undefined || hour <= prev) return;
    const p = this.positions.get(s.instrument);
    if (!p || p.szi === 0 || !(s.mid > 0) || !Number.isFinite(s.fundingRate)) return;
    const usdc = p.qty
      .times(s.mid)
      .times(s.fundingRate)
      .times(hour - prev)
      .neg()
      .toDecimalPlaces(6);
    // An isolated position's funding moves its own margin, as on the venue.
    if (p.isolated) p.isoMargin += usdc.times(MICRO).toNumber();
    else this.cash = this.cash.plus(usdc);
    this.fundingLog.push({
      instrument: s.instrument,
      timeMs: hour * HOUR_MS,
      usdc: wire(usdc),
      fundingRate: s.fundingRate,
    });
  }

  /**
   * Place a market trigger order (a stop-loss or take-profit that becomes a market order when the
   * mark reaches it), checked by the sim venue's rules with its texts: the trigger price, the order's
   * tick and lot, the $10 minimum unless reduce-only (no price band), the cloid, and a trigger the
   * mark (here the mid) has already reached. It waits in the book for the mark; see fireTriggers.
   */
  placeTrigger(t: TriggerRequest): TriggerOutcome {
    const halted = haltedRefusal(this.instruments.get(t.instrument)?.delisted === true);
    if (halted) return { status: "rejected", message: halted };
    const spec = this.instruments.get(t.instrument);
    if (!spec)
      return { status: "rejected", message: `no instrument spec for ${t.instrument} in the paper book` };
    const s = this.last.get(t.instrument);
    if (!s || !(s.mid > 0)) return { status: "rejected", message: "no market data for the paper book" };
    const pxDec = 6 - spec.szDecimals;
    const asset = spec.asset ?? -1;
    const refused = (text: string): TriggerOutcome => ({
      status: "rejected",
      message: this.unsuffixed(spec, text),
    });
    const tp = parseScaled(t.triggerPx, pxDec);
    if (!tp || !validPx(tp)) return refused("Order has invalid trigger price.");
    const isBuy = t.side === "buy";
    const mark = this.markOf(t.instrument);
    const checked = checkOrder({
      asset,
      pxDec,
      szDec: spec.szDecimals,
      px: t.price,
      sz: t.size,
      isBuy,
      reduceOnly: t.reduceOnly,
      trigger: true,
      szi: this.lots(t.instrument),
      reference: mark,
    });
    if ("error" in checked) return refused(checked.error);
    const cloid = t.cloid.toLowerCase() as Cloid;
    if (!/^0x[0-9a-f]{32}$/.test(cloid)) return refused("Order has invalid cloid.");
    if (this.cloidOpen(cloid)) return refused("Duplicate cloid.");
    const above = triggersAbove(t.tpsl, isBuy);
    const early = triggerPriceRefusal(above, mark, tp.scaled, asset);
    if (early) return refused(early);
    this.seq += 1;
    const oid = this.seq;
    this.waiting.push({
      instrument: t.instrument,
      oid,
      cloid,
      side: t.side,
      size: wire(new D(checked.sz).div(10 ** spec.szDecimals)),
      triggerPx: wire(new D(tp.scaled).div(10 ** pxDec)),
      reduceOnly: t.reduceOnly,
      px: tp.scaled,
      lots: checked.sz,
      above,
    });
    return { status: "resting", oid };
  }

  /**
   * Modify a waiting trigger found by its cloid, as the venue's modify does: it is cancelled and its
   * replacement placed (a new oid, the same cloid); a refused replacement leaves the old one waiting.
   */
  modifyTrigger(cloid: Cloid, t: TriggerRequest): TriggerOutcome {
    const i = this.waiting.findIndex((w) => w.cloid === cloid.toLowerCase());
    if (i < 0) return { status: "rejected", message: "Cannot modify canceled or filled order" };
    const [old] = this.waiting.splice(i, 1);
    const r = this.placeTrigger(t);
    if (r.status === "rejected") this.waiting.splice(i, 0, old!);
    return r;
  }

  /** Cancel a waiting trigger by cloid; the venue's refusal text when none waits under it. */
  cancelTrigger(instrument: string, cloid: Cloid): string | null {
    const i = this.waiting.findIndex((w) => w.instrument === instrument && w.cloid === cloid.toLowerCase());
    if (i < 0)
      return this.text(instrument, (a) => `Order was never placed, already canceled, or filled. asset=${a}`);
    this.waiting.splice(i, 1);
    return null;
  }

  /** The trigger orders waiting, oldest first. */
  triggers(): PaperTrigger[] {
    return this.waiting.map(({ px: _px, lots: _lots, above: _above, ...t }) => ({ ...t }));
  }

  private cloidOpen(cloid: Cloid): boolean {
    return (
      this.waiting.some((w) => w.cloid === cloid) ||
      this.resting.some((r) => r.cloid?.toLowerCase() === cloid)
    );
  }

  /**
   * Triggers the mark (the mid) has reached fire as on the venue (core.ts `fire`): a reduce-only one
   * is cut to the position (gone if there is none), and it becomes a market order into the book the
   * paper reads, at most 10 % through the mark and never better than it, paying the taker fee; its
   * fill carries its oid and cloid. One that would meet an empty side waits for the next book.
   */
  private fireTriggers(s: MarketSnapshot): void {
    if (this.waiting.length === 0 || !(s.mid > 0)) return;
    const mark = this.markOf(s.instrument);
    for (const t of [...this.waiting]) {
      if (t.instrument !== s.instrument || !triggerReached(t.above, mark, t.px)) continue;
      const isBuy = t.side === "buy";
      const reducible = this.reducible(t.instrument, t.side);
      const empty = (isBuy ? s.book.asks : s.book.bids).length === 0;
      if (empty && !(t.reduceOnly && reducible.isZero())) continue;
      this.waiting.splice(this.waiting.indexOf(t), 1);
      this.fireTrigger(t, mark, reducible, s);
    }
  }

  private fireTrigger(t: WaitingTrigger, mark: number, reducible: Dec, s: MarketSnapshot): void {
    const { pxDec, szDec } = this.scales(t.instrument);
    const isBuy = t.side === "buy";
    let lots = t.lots;
    if (t.reduceOnly) {
      const allowed = toScaled(reducible, szDec);
      if (allowed === 0) return;
      lots = triggeredReduceOnlySize(lots, allowed);
    }
    const limit = triggeredMarketLimit(isBuy, mark);
    if (!t.reduceOnly) {
      const need = orderMargin(this.lots(t.instrument), isBuy, limit, lots, this.leverage);
      if (marginRefusal(need, this.availableMicro(), -1)) return;
    }
    const limitPx = new D(limit).div(10 ** pxDec);
    const order: PlaceRequest = {
      instrument: t.instrument,
      cloid: t.cloid,
      side: t.side,
      price: wire(limitPx),
      size: wire(new D(lots).div(10 ** szDec)),
      tif: "Ioc",
      reduceOnly: t.reduceOnly,
    };
    this.walkAsTaker(order, `paper-${t.oid}`, limitPx, new D(lots).div(10 ** szDec), s, mark);
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

  private takenOf(instrument: string): Map<string, Taken> {
    let t = this.taken.get(instrument);
    if (!t) {
      t = new Map();
      this.taken.set(instrument, t);
    }
    return t;
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
    feeRate: Dec,
    timeMs: number,
    liquidation?: GatewayFill["liquidation"],
  ): void {
    this.seq += 1;
    const ntl = px.times(sz);
    // The exchange's liquidation orders carry no builder code.
    const fee = fillFee(ntl, feeRate).plus(liquidation ? 0 : fillFee(ntl, this.builder));
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
      ...(liquidation ? { liquidation } : {}),
    });
    this.cash = this.cash.minus(fee);
    this.applyToPosition(instrument, side === "buy", px, sz);
  }

  /**
   * A fill's effect on the position, in the venue's integers and by its rules (core.ts `settle`): the
   * closing part realizes PnL against the cost basis and releases its share of an isolated
   * position's margin; the opening part adds to the cost basis and, isolated, takes margin at the
   * fill price and the leverage.
   */
  private applyToPosition(instrument: string, isBuy: boolean, px: Dec, sz: Dec): void {
    const { pxDec, szDec } = this.scales(instrument);
    const pxS = toScaled(px, pxDec);
    const q = toScaled(sz, szDec);
    const p = this.positions.get(instrument) ?? newPosition(this.isolated, this.leverage);
    const start = p.szi;
    let openQ = q;
    let cashMicro = 0;
    if (start !== 0 && start > 0 !== isBuy) {
      const abs = Math.abs(start);
      const closeQ = Math.min(q, abs);
      const cost = closeQ === abs ? p.entryNtl : mulDiv(p.entryNtl, closeQ, abs, "round");
      cashMicro += start > 0 ? pxS * closeQ - cost : cost - pxS * closeQ;
      p.entryNtl -= cost;
      if (p.isolated) {
        const rel = isolatedMarginReleased(p.isoMargin, closeQ, abs);
        p.isoMargin -= rel;
        cashMicro += rel;
      }
      p.szi += start > 0 ? -closeQ : closeQ;
      openQ = q - closeQ;
    }
    if (openQ > 0) {
      if (p.szi === 0) Object.assign(p, newPosition(this.isolated, this.leverage));
      p.szi += isBuy ? openQ : -openQ;
      p.entryNtl += pxS * openQ;
      if (p.isolated) {
        const margin = isolatedOpenMargin(pxS, openQ, p.lev);
        p.isoMargin += margin;
        cashMicro -= margin;
      }
    }
    this.cash = this.cash.plus(usdOf(cashMicro));
    if (p.szi === 0) {
      this.positions.delete(instrument);
      return;
    }
    p.qty = new D(p.szi).div(10 ** szDec);
    p.entry = usdOf(p.entryNtl).div(p.qty.abs()).toDecimalPlaces(10);
    this.positions.set(instrument, p);
  }

  private nextOid(): string {
    this.seq += 1;
    return `paper-${this.seq}`;
  }
}

/**
 * Size displayed at `px` on one side (bids best-first descending, asks ascending); 0 when the price
 * lies inside the shown depth without a level there, undefined when beyond the deepest level shown.
 */
function displayedAt(levels: readonly BookLevel[], px: number, bids: boolean): number | undefined {
  const at = levels.find((l) => l.px === px);
  if (at) return at.sz;
  const deepest = levels.at(-1);
  if (!deepest) return 0;
  return (bids ? px < deepest.px : px > deepest.px) ? undefined : 0;
}

/** A position as the paper book keeps it: the venue's integers (lots, micro-USDC) and their decimals. */
interface PaperPosition extends MarginedPosition {
  /** Margin an isolated position holds, micro-USDC. */
  isoMargin: number;
  /** The same size and its average entry price, as decimals. */
  qty: Dec;
  entry: Dec;
}

function newPosition(isolated: boolean, lev: number): PaperPosition {
  return { szi: 0, entryNtl: 0, isolated, lev, isoMargin: 0, qty: new D(0), entry: new D(0) };
}

/** A decimal price or size on the venue's integer scale. */
function toScaled(v: Dec, decimals: number): number {
  return v
    .times(10 ** decimals)
    .round()
    .toNumber();
}

/** Micro-USDC as USDC. */
function usdOf(micro: number): Dec {
  return new D(micro).div(MICRO);
}

import type { CandleSnapshotResponse, MetaAndAssetCtxsResponse } from "@nktkas/hyperliquid";
import { agentAlertSource } from "../alerts/agent-label.ts";
import { type Alerter, alerterFromEnv } from "../alerts/webhook.ts";
import { dataDir } from "../config/env.ts";
import { dec, num } from "../core/decimal.ts";
import type { OrderResult } from "../exchange/actions.ts";
import type { HlClient } from "../exchange/client.ts";
import type { Fill, OpenOrder } from "../exchange/info.ts";
import { OrderOutcomeUnknownError, type PendingOrder } from "../exchange/order-outcome.ts";
import { assetContextMaxAgeMs, sharedRead } from "../exchange/shared-reads.ts";
import type { Market } from "../exchange/symbols.ts";
import type { BookLevel, Candle, MarketNeeds, MarketSnapshot } from "../strategies/sdk.ts";
import { FillFeed, type FillFeedOptions } from "./fill-feed.ts";
import { OpenOrdersFeed, type OpenOrdersFeedOptions, type StreamedOrder } from "./open-orders-feed.ts";
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
import type { KvStore } from "./state-store.ts";

const MINUTE_MS = 60_000;
const CANDLE_WINDOW_MS = 30 * MINUTE_MS;
/** predictedFundings venue names → our keys (Hyperliquid's own entry is the snapshot's fundingRate). */
const OTHER_VENUES: Record<string, string> = { BinPerp: "binance", BybitPerp: "bybit" };

/**
 * Market data over HlClient: the L2 book (mid, touch, depth, exchange time) every tick; and, only
 * for strategies that read them, the asset context (hourly funding, open interest, 24 h notional
 * volume) from the process-wide shared read refreshed every HL_ASSET_CTX_MAX_AGE_S (60 s) whatever
 * the tick, closed 1-minute candles (read again once a minute has closed) and other venues'
 * predicted funding (shared like the asset context). A dry run reads the asset context whatever the
 * strategy (`funding`): its paper book charges funding, which the exchange charges a real account.
 */
export class HlMarketData implements MarketDataPort {
  private readonly markets = new Map<string, Promise<Market>>();
  /** Per coin: the last candle read and the exchange time it was read for. */
  private readonly candleReads = new Map<string, { now: number; candles: Promise<CandleSnapshotResponse> }>();

  constructor(
    private readonly client: HlClient,
    private readonly needs: MarketNeeds = {},
    private readonly opts: { funding?: boolean } = {},
  ) {}

  market(instrument: string): Promise<Market> {
    let m = this.markets.get(instrument);
    if (!m) {
      m = this.client.market(instrument);
      this.markets.set(instrument, m);
      m.catch(() => this.markets.delete(instrument));
    }
    return m;
  }

  async spec(instrument: string): Promise<InstrumentSpec> {
    const m = await this.market(instrument);
    return {
      instrument: m.instrument,
      szDecimals: m.szDecimals,
      asset: m.assetId,
      maxLeverage: m.maxLeverage,
      ...(m.marginTableId !== undefined ? { marginTableId: m.marginTableId } : {}),
    };
  }

  async snapshot(instrument: string): Promise<MarketSnapshot> {
    const m = await this.market(instrument);
    // Candles are read for the book's exchange time, which a sim world may run far from the wall clock.
    const bookRead = this.client.l2Book(m.coin);
    const [book, ctx, candles, reference] = await Promise.all([
      bookRead,
      this.needs.assetContext || this.opts.funding ? this.assetContext(m) : Promise.resolve(undefined),
      this.needs.candles
        ? bookRead.then((b) => this.candles(m.coin, b?.time ?? Date.now()))
        : Promise.resolve([]),
      this.needs.referenceFunding && !m.dex ? this.referenceFunding(m.coin) : Promise.resolve({}),
    ]);
    const toLevels = (ls: readonly { px: string; sz: string }[] | undefined): BookLevel[] =>
      (ls ?? []).map((l) => ({ px: Number(l.px), sz: Number(l.sz) }));
    const bids = toLevels(book?.levels[0]);
    const asks = toLevels(book?.levels[1]);
    const bestBid = book?.levels[0][0]?.px;
    const bestAsk = book?.levels[1][0]?.px;
    const bid = bids[0]?.px ?? 0;
    const ask = asks[0]?.px ?? 0;
    return {
      instrument: m.instrument,
      timestampMs: book?.time ?? Date.now(),
      mid: bestBid && bestAsk && bid > 0 && ask > 0 ? num(dec(bestBid).plus(bestAsk).div(2)) : 0,
      bid,
      ask,
      book: { bids, asks },
      fundingRate: ctx ? Number(ctx.funding) : 0,
      openInterest: ctx ? Number(ctx.openInterest) : 0,
      volume24h: ctx ? Number(ctx.dayNtlVlm) : 0,
      candles,
      referenceFunding: reference,
    };
  }

  /**
   * The market's asset context from the shared read. A strategy that needs it fails its tick when it
   * cannot be read; for the others (funding only) a failed read leaves funding unknown (0) this tick.
   */
  private async assetContext(m: Market): Promise<MetaAndAssetCtxsResponse[1][number] | undefined> {
    try {
      const [meta, ctxs] = await this.client.assetContexts(m.dex);
      const idx = meta.universe.findIndex((u) => u.name === m.coin || `${m.dex}:${u.name}` === m.coin);
      return idx >= 0 ? ctxs[idx] : undefined;
    } catch (err) {
      if (this.needs.assetContext) throw err;
      return undefined;
    }
  }

  /** Whether the dex's `meta` flags the market `isDelisted`, read now (not from the shared cache). */
  async delisted(instrument: string): Promise<boolean> {
    const m = await this.market(instrument);
    const meta = await this.client.meta(m.dex);
    const entry = meta.universe.find((u) => u.name === m.coin || `${m.dex}:${u.name}` === m.coin);
    return entry?.isDelisted === true;
  }

  async trades(instrument: string): Promise<TradePrint[]> {
    const m = await this.market(instrument);
    const raw = await this.client.recentTrades(m.coin);
    return raw.map((t) => ({
      id: String(t.tid),
      side: t.side === "B" ? "buy" : "sell",
      px: Number(t.px),
      sz: Number(t.sz),
      timeMs: t.time,
    }));
  }

  /**
   * The 1-minute candles closed by `now`: the one in progress is left out, being partial (its volume
   * would read as a sudden lull), and a backtest on recorded candles never sees it either.
   */
  private async candles(coin: string, now: number): Promise<Candle[]> {
    // The closed candles change only when a minute closes: until then the last read answers.
    const last = this.candleReads.get(coin);
    let read = last?.candles;
    if (!last || Math.floor(now / MINUTE_MS) !== Math.floor(last.now / MINUTE_MS) || now < last.now) {
      read = this.client.candleSnapshot({ coin, interval: "1m", startTime: now - CANDLE_WINDOW_MS });
      const entry = { now, candles: read };
      this.candleReads.set(coin, entry);
      read.catch(() => {
        if (this.candleReads.get(coin) === entry) this.candleReads.delete(coin);
      });
    }
    const raw = await read!;
    return raw
      .filter((c) => c.t + MINUTE_MS <= now && c.t >= now - CANDLE_WINDOW_MS)
      .map((c) => ({
        t: c.t,
        o: Number(c.o),
        h: Number(c.h),
        l: Number(c.l),
        c: Number(c.c),
        v: Number(c.v),
      }));
  }

  private async referenceFunding(coin: string): Promise<Record<string, number>> {
    const all = await sharedRead(`${this.client.apiUrl}|predictedFundings`, assetContextMaxAgeMs(), () =>
      this.client.predictedFundings(),
    );
    const entry = all.find(([c]) => c === coin);
    const out: Record<string, number> = {};
    for (const [venue, v] of entry?.[1] ?? []) {
      const key = OTHER_VENUES[venue];
      if (!key || !v) continue;
      const hours = v.fundingIntervalHours ?? 8;
      out[key] = Number(v.fundingRate) / hours;
    }
    return out;
  }
}

/** What an account under Hyperliquid's volume gate is told when it asks for the dead man's switch. */
function deadManVolumeGateLine(refusal: string): string {
  return `dead man's switch unavailable: the exchange refuses scheduleCancel until this account has traded $1,000,000 ("${refusal}"); resting orders are not cancelled if this process dies, and no stop order rests on the exchange for this account (an hl run with a DSL stop, --dsl-preset, keeps one for its position)`;
}

/** Where the orders sent without an answer yet are kept, so a restarted run resolves them first. */
interface PendingOrderStore {
  load(): PendingOrder[];
  save(pending: readonly PendingOrder[]): void;
}

/** The kv key of `cli/state.db` holding the orders in flight (cloid, what was sent, expiry). */
const PENDING_ORDERS_KEY = "pending_orders";

/**
 * Pending orders under the key `pending_orders` of the engine's own open state store (`state.db`),
 * written in one transaction before each order goes out and cleared once its answer is in: a run
 * killed mid-request finds them at its next start. The store stays open for the run (one connection,
 * as the engine's per-tick save uses), not reopened for every order.
 */
export function pendingOrderStore(store: KvStore): PendingOrderStore {
  return {
    load() {
      const raw = store.readAll()[PENDING_ORDERS_KEY];
      if (!raw) return [];
      try {
        const v: unknown = JSON.parse(raw);
        return Array.isArray(v) ? (v as PendingOrder[]) : [];
      } catch {
        return [];
      }
    },
    save(pending) {
      store.save({ [PENDING_ORDERS_KEY]: pending });
    },
  };
}

/**
 * Orders, fills and positions over HlClient; every order carries our cloid. An order batch whose answer
 * was lost is resolved by cloid before this gateway sends anything else: `place` waits for the
 * resolution and returns what really happened, and while it cannot be resolved, every later `place`
 * throws without sending. With a pending store, each batch is saved (cloid, expiry) before it is sent,
 * so a run restarted within the orders' expiry resolves them before it sends or reads anything else.
 */
export class HlGateway implements OrderGateway {
  private unresolved: PendingOrder[] = [];
  private readonly pending: PendingOrderStore | undefined;
  private readonly alerter: Alerter;
  /** Newest account fill (any coin) the last fills read saw. */
  private throughMs: number | undefined;
  /** The account's `userFills` stream, when there is one; REST reads are then only its backstop. */
  private readonly feed: FillFeed | undefined;
  /** Orders answered "filled" whose fills no read has returned yet. */
  private readonly awaitingFills = new Set<string>();
  /** The account's `openOrders` stream, per dex, when there is one; REST reads are then its backstop. */
  private readonly orderStream: Omit<OpenOrdersFeedOptions, "dex"> | undefined;
  private readonly orderFeeds = new Map<string, OpenOrdersFeed>();

  constructor(
    private readonly client: HlClient,
    private readonly market: HlMarketData,
    fillStream?: FillFeedOptions,
    opts: {
      pending?: PendingOrderStore;
      alerter?: Alerter;
      openOrdersStream?: Omit<OpenOrdersFeedOptions, "dex">;
    } = {},
  ) {
    this.alerter = opts.alerter ?? alerterFromEnv(agentAlertSource("hl run", dataDir(), process.env));
    this.feed = fillStream ? new FillFeed(fillStream) : undefined;
    this.orderStream = opts.openOrdersStream;
    this.pending = opts.pending;
    // Orders a previous run sent without learning their outcome come first.
    this.unresolved = this.pending?.load() ?? [];
  }

  /** Stop the fills stream subscription. */
  close(): void {
    this.feed?.close();
    for (const f of this.orderFeeds.values()) f.close();
  }

  private orderFeed(dex: string): OpenOrdersFeed | undefined {
    if (!this.orderStream) return undefined;
    let feed = this.orderFeeds.get(dex);
    if (!feed) {
      feed = new OpenOrdersFeed({ ...this.orderStream, dex });
      this.orderFeeds.set(dex, feed);
    }
    return feed;
  }

  /**
   * A dex's resting orders (stops included) from the open-orders stream this gateway already follows
   * there, when it can be trusted; undefined otherwise (no stream on that dex, or not current).
   */
  streamedOrders(dex: string): Promise<StreamedOrder[] | undefined> {
    return this.orderFeeds.get(dex)?.trusted() ?? Promise.resolve(undefined);
  }

  /** Our orders changed (or may have): the open-orders streams must push again before they are trusted. */
  private acted(): void {
    for (const f of this.orderFeeds.values()) f.acted();
  }

  async place(orders: readonly PlaceRequest[]): Promise<PlaceOutcome[]> {
    let outcomes: PlaceOutcome[] | undefined;
    try {
      outcomes = await this.placeNow(orders);
      return outcomes;
    } finally {
      // Orders all refused changed no list: the stream pushes nothing for them, so none is awaited.
      if (!outcomes?.every((o) => o.status === "rejected")) this.acted();
    }
  }

  private async placeNow(orders: readonly PlaceRequest[]): Promise<PlaceOutcome[]> {
    await this.resolvePending();
    let results: OrderResult[];
    const store = this.pending;
    try {
      results = await this.client.orders(
        orders.map((o) => ({
          instrument: o.instrument,
          side: o.side,
          price: o.price,
          size: o.size,
          tif: o.tif,
          reduceOnly: o.reduceOnly,
          cloid: o.cloid,
        })),
        store ? { onSending: (p) => store.save(p) } : {},
      );
    } catch (err) {
      if (!(err instanceof OrderOutcomeUnknownError)) {
        store?.save([]);
        throw err;
      }
      this.unresolved = [...err.pending];
      results = await this.resolvePending();
    }
    store?.save([]);
    return results.map((r): PlaceOutcome => {
      if (r.status === "resting") return { status: "resting", oid: String(r.oid) };
      if (r.status === "filled") {
        this.awaitingFills.add(String(r.oid));
        return { status: "filled", oid: String(r.oid) };
      }
      return { status: "rejected", message: r.message };
    });
  }

  private resolving: Promise<OrderResult[]> | undefined;

  /** Resolve the orders of a lost answer, oldest first; what stays unknown stays pending (and throws). */
  private resolvePending(): Promise<OrderResult[]> {
    if (this.unresolved.length === 0) return Promise.resolve([]);
    // One resolution at a time: a read and an order waiting on it must not resolve an order twice.
    this.resolving ??= this.resolveInOrder().finally(() => {
      this.resolving = undefined;
    });
    return this.resolving;
  }

  private async resolveInOrder(): Promise<OrderResult[]> {
    const out: OrderResult[] = [];
    while (this.unresolved.length > 0) {
      out.push(await this.client.resolveOrder(this.unresolved[0]!));
      this.unresolved.shift();
      this.pending?.save(this.unresolved);
    }
    return out;
  }

  /** Cancels the batch in one exchange call and reports each order the exchange did not cancel. */
  async cancel(instrument: string, orders: readonly GatewayOrder[]): Promise<CancelResult> {
    if (orders.length === 0) return { failed: [] };
    try {
      return await this.cancelNow(instrument, orders);
    } finally {
      this.acted();
    }
  }

  private async cancelNow(instrument: string, orders: readonly GatewayOrder[]): Promise<CancelResult> {
    try {
      const refusals = await this.client.cancelMany(
        orders.map((o) =>
          o.oid ? { instrument, oid: Number(o.oid) } : { instrument, ...(o.cloid ? { cloid: o.cloid } : {}) },
        ),
      );
      return {
        failed: orders.flatMap((order, i) => {
          const message = refusals[i];
          return message === undefined ? [] : [{ order, message }];
        }),
      };
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      return { failed: orders.map((order) => ({ order, message })) };
    }
  }

  /**
   * The dead man's switch. Hyperliquid's scheduleCancel cancels every open order of the account when
   * it fires, resting stop (trigger) orders included, and nothing would put them back: so it is not
   * armed while one rests — the backstops are the better protection. An account under $1M of traded
   * volume cannot arm it at all; that refusal is turned into one clear line (and an alert).
   */
  async scheduleCancelAll(atMs: number | null): Promise<void> {
    if (atMs !== null && this.client.address) {
      const open = await this.client.infoClient.frontendOpenOrders({ user: this.client.address });
      const stops = open.filter((o) => o.isTrigger).length;
      if (stops > 0)
        throw new Error(
          `not armed: when it fires it would also cancel the ${stops} resting stop order(s) (the backstops) and nothing would re-place them`,
        );
    }
    try {
      await this.client.scheduleCancel(atMs);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (!/enough volume traded/i.test(message)) throw err;
      const line = deadManVolumeGateLine(message);
      this.alerter.send("dead_man", line);
      throw new Error(line, { cause: err });
    }
  }

  async openOrders(instrument: string): Promise<GatewayOrder[]> {
    // An order still in flight from before a restart may yet rest or fill: known first.
    await this.resolvePending();
    const m = await this.market.market(instrument);
    const feed = this.orderFeed(m.dex);
    const streamed = await feed?.read();
    let all: readonly (OpenOrder | StreamedOrder)[];
    if (streamed && !streamed.rest) all = streamed.orders;
    else {
      all = await this.client.openOrders(m.dex ? { dex: m.dex } : {});
      feed?.restDone();
    }
    return all
      .filter((o) => o.coin === m.coin)
      .map((o) => ({
        oid: String(o.oid),
        ...(o.cloid ? { cloid: o.cloid as Cloid } : {}),
        side: o.side === "B" ? "buy" : "sell",
        price: o.limitPx,
        size: o.sz,
        ...(o.reduceOnly ? { reduceOnly: true } : {}),
      }));
  }

  /**
   * With a fills stream, the fills it pushed since the last call (no request); over REST (the whole
   * account's fills since `sinceMs`) on the first call, after the stream dropped, and every few calls.
   */
  async fills(
    instrument: string,
    sinceMs: number,
    opts: { fresh?: boolean; prompted?: boolean } = {},
  ): Promise<GatewayFill[]> {
    const m = await this.market.market(instrument);
    const streamed = opts.fresh ? undefined : await this.feed?.read({ prompted: opts.prompted === true });
    const pushedEarlier = streamed && !streamed.rest ? streamed.fills : [];
    // An order the exchange answered "filled" must show in this read: the stream may not have
    // delivered its fills yet, so REST is asked then (the strategy and the DSL stop act on them now).
    const complete = [...this.awaitingFills].every((oid) => pushedEarlier.some((f) => String(f.oid) === oid));
    let raw: Fill[];
    if (streamed && !streamed.rest && complete) raw = pushedEarlier;
    else {
      const liveEpoch = this.feed?.liveEpoch();
      raw = await this.client.userFillsSince({ startTime: sinceMs });
      this.throughMs = raw.reduce((t, f) => Math.max(t, f.time), this.throughMs ?? 0);
      const pushed = [...pushedEarlier, ...(this.feed?.restDone(liveEpoch) ?? [])];
      const got = new Set(raw.map((f) => f.tid));
      raw = [...raw, ...pushed.filter((f) => !got.has(f.tid))];
    }
    this.awaitingFills.clear();
    return raw
      .filter((f) => f.coin === m.coin && f.time >= sinceMs)
      .sort((a, b) => a.time - b.time)
      .map((f) => ({
        id: String(f.tid),
        oid: String(f.oid),
        ...(f.cloid ? { cloid: f.cloid as Cloid } : {}),
        side: f.side === "B" ? "buy" : "sell",
        price: f.px,
        size: f.sz,
        fee: f.fee,
        timeMs: f.time,
        ...(f.dir === "Settlement" ? { settlement: true } : {}),
        ...(f.liquidation
          ? { liquidation: { method: f.liquidation.method, markPx: f.liquidation.markPx } }
          : {}),
      }));
  }

  /** A fill on the instrument pushed by the fills stream calls `listener` (the next `fills` read has it). */
  onFillPushed(instrument: string, listener: () => void): () => void {
    if (!this.feed) return () => undefined;
    let coin: string | undefined;
    this.market.market(instrument).then(
      (m) => {
        coin = m.coin;
      },
      () => undefined,
    );
    // Until the market is known, every push is taken for one of ours: a read too many costs nothing.
    return this.feed.onPush((fills) => {
      if (coin === undefined || fills.some((f) => f.coin === coin)) listener();
    });
  }

  accountFillsThroughMs(): number | undefined {
    return this.throughMs;
  }

  async position(instrument: string): Promise<{ qty: string; entryPx: string }> {
    await this.resolvePending();
    const m = await this.market.market(instrument);
    const state = await this.client.clearinghouseState(m.dex ? { dex: m.dex } : {});
    const p = state.assetPositions.find((a) => a.position.coin === m.coin)?.position;
    return p ? { qty: p.szi, entryPx: p.entryPx } : { qty: "0", entryPx: "0" };
  }
}

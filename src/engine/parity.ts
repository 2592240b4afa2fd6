/**
 * Paper against live, measured: one strategy, one seed, one price path, run twice — trading on an
 * in-process sim venue, and as --dry-run (the paper book) watching an identical venue. The market
 * (oracle path, a market maker requoting every step, background takers) is replayed from the seed,
 * so the two runs differ only by what the strategy's own orders do to the market and how each side
 * fills them. docs/paper-parity.md states the bounds and why they cannot be tighter.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { D, type Dec, dec, wire } from "../core/decimal.ts";
import { UserError } from "../core/errors.ts";
import { createRng, type Rng } from "../sim/model/prng.ts";
import { BASE_TIER, type FillFeeRates, fillFeeRates, type UserFeeRates } from "../sim/venue/fee-rates.ts";
import { createVenue, type SimVenue } from "../sim/venue/index.ts";
import type { Address, WireOrder } from "../sim/venue.ts";
import { defaultParams, findStrategy } from "../strategies/catalog.ts";
import type { MarketSnapshot } from "../strategies/sdk.ts";
import { Engine } from "./engine.ts";
import { PaperGateway, type PaperOptions } from "./paper-gateway.ts";
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
import { DEFAULT_RISK_LIMITS } from "./risk.ts";

const TRADER: Address = "0x7ade000000000000000000000000000000000001";
const MAKER: Address = "0x7ade0000000000000000000000000000000000aa";
const TAKER: Address = "0x7ade0000000000000000000000000000000000bb";
const COIN = "ETH";
const INSTRUMENT = "ETH-PERP";
const ASSET = 1;
const SZ_DECIMALS = 4;
const START_MS = Date.UTC(2026, 0, 5);
const STEP_MS = 1_000;
/** What every account on the replayed venue starts with (the maker and takers need depth). */
const STARTING_BALANCE = "1000000";
const DEFAULT_VOLATILITY = 0.0004;

/** The replayed market: oracle random walk, a 5-level maker ladder, random taker flow. */
class ReplayedMarket implements MarketDataPort {
  readonly venue: SimVenue;
  private now = START_MS;
  private oracle = 3400;
  private readonly rng: Rng;
  private makerOids: number[] = [];

  /**
   * `balanceUsd`: the trader's USDC on the venue (default: the starting balance); `volatility`: the
   * oracle's standard deviation per second, a fraction of its price.
   */
  constructor(
    seed: number,
    balanceUsd: string | undefined,
    private readonly volatility: number,
    referred = false,
  ) {
    this.rng = createRng(seed);
    this.venue = createVenue({ seed, clock: () => this.now, startingBalance: STARTING_BALANCE });
    if (balanceUsd !== undefined) {
      const excess = dec(STARTING_BALANCE).minus(balanceUsd);
      if (excess.gt(0)) this.venue.withdraw(TRADER, wire(excess));
      else if (excess.lt(0)) this.venue.deposit(TRADER, wire(excess.neg()));
    }
    if (referred) this.referTrader();
    this.step();
  }

  /**
   * The trader names a referral code before it trades, so the venue charges its fills 4 % less: the
   * code's owner (the background taker) first trades the $10,000 a code needs, with the maker.
   */
  private referTrader(): void {
    // Nonces just before the first step's, one per action.
    let nonce = this.now - 10;
    const order = (user: Address, isBuy: boolean, tif: "Gtc" | "Ioc") =>
      this.venue.exchange(
        { type: "order", orders: [limit(isBuy, "3400", "3", tif)], grouping: "na" },
        user,
        nonce++,
      );
    order(MAKER, false, "Gtc");
    order(TAKER, true, "Ioc");
    for (const [user, action] of [
      [TAKER, { type: "registerReferrer", code: "PARITY" }],
      [TRADER, { type: "setReferrer", code: "PARITY" }],
    ] as const) {
      const r = this.venue.exchange(action, user, nonce++);
      if (r.status !== "ok") throw new Error(`${action.type}: ${JSON.stringify(r.response)}`);
    }
  }

  /** One second of market: the oracle moves, the maker requotes, a taker may trade. */
  step(): void {
    this.now += STEP_MS;
    this.venue.advance(this.now);
    this.oracle *= 1 + this.volatility * this.rng.normal();
    this.venue.setOraclePrice(COIN, px(this.oracle));
    if (this.makerOids.length > 0)
      this.venue.exchange(
        { type: "cancel", cancels: this.makerOids.map((o) => ({ a: ASSET, o })) },
        MAKER,
        this.now,
      );
    const ladder: WireOrder[] = [];
    for (let i = 1; i <= 5; i++) {
      const size = sz(0.5 + this.rng.next() * 2);
      ladder.push(limit(true, px(this.oracle * (1 - 0.0003 * i)), size, "Gtc"));
      ladder.push(limit(false, px(this.oracle * (1 + 0.0003 * i)), size, "Gtc"));
    }
    const r = this.venue.exchange({ type: "order", orders: ladder, grouping: "na" }, MAKER, this.now);
    this.makerOids = r.status === "ok" ? restingOids(r.response.data) : [];
    const trades = this.rng.chance(0.7);
    const isBuy = this.rng.chance(0.5);
    const size = sz(0.05 + this.rng.next() * 2.5);
    if (trades) {
      const limitPx = px(this.oracle * (isBuy ? 1.005 : 0.995));
      this.venue.exchange(
        { type: "order", orders: [limit(isBuy, limitPx, size, "Ioc")], grouping: "na" },
        TAKER,
        this.now,
      );
    }
  }

  /**
   * The market as the venue's `meta` lists it, as `hl run` learns it from the exchange's: lot size,
   * asset id, max leverage and margin table (the paper book's maintenance margin follows the last two).
   */
  async spec(instrument: string): Promise<InstrumentSpec> {
    const meta = this.venue.info({ type: "meta" }) as {
      universe: { name: string; szDecimals: number; maxLeverage: number; marginTableId?: number }[];
    };
    const asset = meta.universe.findIndex((u) => u.name === COIN);
    const m = meta.universe[asset]!;
    return {
      instrument,
      szDecimals: m.szDecimals,
      asset,
      maxLeverage: m.maxLeverage,
      ...(m.marginTableId !== undefined ? { marginTableId: m.marginTableId } : {}),
    };
  }

  /**
   * The paper account, as a dry run takes it from the wallet's account (dry-run-account.ts): the
   * trader's account value and margin in use on this venue, its leverage and mode on the market, and
   * its fee rates (`userFees`).
   */
  paperAccount(): PaperOptions {
    const state = this.venue.info({ type: "clearinghouseState", user: TRADER }) as {
      marginSummary: { accountValue: string; totalMarginUsed: string };
    };
    const asset = this.venue.info({ type: "activeAssetData", user: TRADER, coin: COIN }) as {
      leverage: { type: "cross" | "isolated"; value: number };
    };
    const fees = this.venue.info({ type: "userFees", user: TRADER }) as UserFeeRates;
    return {
      balanceUsd: state.marginSummary.accountValue,
      reservedUsd: state.marginSummary.totalMarginUsed,
      leverage: asset.leverage.value,
      isolated: asset.leverage.type === "isolated",
      // ETH is a main-dex market: no deployer fee scale.
      fees: fillFeeRates(fees),
    };
  }

  async snapshot(instrument: string): Promise<MarketSnapshot> {
    this.step();
    const book = this.venue.info({ type: "l2Book", coin: COIN }) as {
      time: number;
      levels: [{ px: string; sz: string }[], { px: string; sz: string }[]];
    };
    const bids = book.levels[0].map((l) => ({ px: Number(l.px), sz: Number(l.sz) }));
    const asks = book.levels[1].map((l) => ({ px: Number(l.px), sz: Number(l.sz) }));
    const bid = bids[0]?.px ?? 0;
    const ask = asks[0]?.px ?? 0;
    return {
      instrument,
      timestampMs: book.time,
      mid: bid > 0 && ask > 0 ? (bid + ask) / 2 : 0,
      bid,
      ask,
      book: { bids, asks },
      fundingRate: 0,
      openInterest: 0,
      volume24h: 0,
      candles: [],
      referenceFunding: {},
    };
  }

  async trades(): Promise<TradePrint[]> {
    const raw = this.venue.info({ type: "recentTrades", coin: COIN }) as {
      side: "B" | "A";
      px: string;
      sz: string;
      time: number;
      tid: number;
    }[];
    return raw.map((t) => ({
      id: String(t.tid),
      side: t.side === "B" ? "buy" : "sell",
      px: Number(t.px),
      sz: Number(t.sz),
      timeMs: t.time,
    }));
  }

  mid(): number {
    const mids = this.venue.info({ type: "allMids" }) as Record<string, string>;
    return Number(mids[COIN] ?? this.oracle);
  }
}

/** The strategy's orders on the replayed venue, as HlGateway would send them to the exchange. */
class VenueGateway implements OrderGateway {
  constructor(private readonly market: ReplayedMarket) {}

  private get venue(): SimVenue {
    return this.market.venue;
  }

  async place(orders: readonly PlaceRequest[]): Promise<PlaceOutcome[]> {
    const wire = orders.map((o) => ({
      ...limit(o.side === "buy", o.price, o.size, o.tif),
      r: o.reduceOnly,
      c: o.cloid,
    }));
    const r = this.venue.exchange({ type: "order", orders: wire, grouping: "na" }, TRADER, this.venue.now());
    if (r.status === "err") return orders.map(() => ({ status: "rejected", message: r.response }));
    const statuses = (r.response.data as { statuses: Record<string, { oid: number }>[] }).statuses;
    return statuses.map((s): PlaceOutcome => {
      if (s.resting) return { status: "resting", oid: String(s.resting.oid) };
      if (s.filled) return { status: "filled", oid: String(s.filled.oid) };
      return { status: "rejected", message: String((s as { error?: unknown }).error) };
    });
  }

  async cancel(_instrument: string, orders: readonly GatewayOrder[]): Promise<CancelResult> {
    if (orders.length === 0) return { failed: [] };
    const r = this.venue.exchange(
      { type: "cancel", cancels: orders.map((o) => ({ a: ASSET, o: Number(o.oid) })) },
      TRADER,
      this.venue.now(),
    );
    if (r.status === "err") return { failed: orders.map((order) => ({ order, message: r.response })) };
    const statuses = (r.response.data as { statuses: (string | { error?: string })[] }).statuses;
    const failed: CancelResult["failed"] = [];
    statuses.forEach((s, i) => {
      const order = orders[i];
      if (order && s !== "success")
        failed.push({ order, message: typeof s === "string" ? s : String(s.error) });
    });
    return { failed };
  }

  async openOrders(): Promise<GatewayOrder[]> {
    const open = this.venue.info({ type: "openOrders", user: TRADER }) as {
      oid: number;
      cloid?: string;
      side: "B" | "A";
      limitPx: string;
      sz: string;
    }[];
    return open.map((o) => ({
      oid: String(o.oid),
      ...(o.cloid ? { cloid: o.cloid as Cloid } : {}),
      side: o.side === "B" ? "buy" : "sell",
      price: o.limitPx,
      size: o.sz,
    }));
  }

  async fills(_instrument: string, sinceMs: number): Promise<GatewayFill[]> {
    const all = this.venue.info({ type: "userFills", user: TRADER }) as {
      tid: number;
      oid: number;
      cloid?: string;
      side: "B" | "A";
      px: string;
      sz: string;
      fee: string;
      time: number;
      liquidation?: { method: "market" | "backstop"; markPx: string };
    }[];
    return all
      .filter((f) => f.time >= sinceMs)
      .reverse()
      .map((f) => ({
        id: String(f.tid),
        oid: String(f.oid),
        ...(f.cloid ? { cloid: f.cloid as Cloid } : {}),
        side: f.side === "B" ? "buy" : "sell",
        price: f.px,
        size: f.sz,
        fee: f.fee,
        timeMs: f.time,
        ...(f.liquidation
          ? { liquidation: { method: f.liquidation.method, markPx: f.liquidation.markPx } }
          : {}),
      }));
  }

  async position(): Promise<{ qty: string; entryPx: string }> {
    const state = this.venue.info({ type: "clearinghouseState", user: TRADER }) as {
      assetPositions: { position: { coin: string; szi: string; entryPx: string } }[];
    };
    const p = state.assetPositions.find((a) => a.position.coin === COIN)?.position;
    return p ? { qty: p.szi, entryPx: p.entryPx } : { qty: "0", entryPx: "0" };
  }
}

interface RunSummary {
  fills: number;
  /** Fills of the exchange's liquidation of the position (market orders and the backstop). */
  liquidations: number;
  /** Traded notional, USD. */
  volume: string;
  fees: string;
  /** Cash flow of the fills minus fees, plus the position at the final mid (USD). */
  pnl: string;
  position: string;
}

export interface ParityReport {
  strategy: string;
  seed: number;
  ticks: number;
  /** The trader was referred (the venue charged it 4 % less). */
  referred: boolean;
  /** The rates the paper book charged, fractions of notional: the trader's own, from `userFees`. */
  paperFeeRates: FillFeeRates;
  sim: RunSummary;
  dryRun: RunSummary;
  /** dry-run − sim. */
  difference: { fills: number; volume: string; fees: string; pnl: string };
}

interface ParityOptions {
  strategy: string;
  params?: Record<string, number>;
  seed: number;
  ticks: number;
  /** Scratch directory for the two engines' state. */
  dataDir: string;
  /** The trader's USDC, on the venue and so on paper (default: the replayed venue's 1,000,000). */
  balanceUsd?: string;
  /** The oracle's standard deviation per second, a fraction of its price (default 0.0004: 4 bps). */
  volatility?: number;
  /** The trader names a referral code before trading (the venue then charges it 4 % less). */
  referred?: boolean;
}

/** Run the strategy on the replayed sim venue and as --dry-run beside an identical one. */
export async function runParity(o: ParityOptions): Promise<ParityReport> {
  const strategy = findStrategy(o.strategy);
  if (!strategy) throw new UserError(`unknown strategy "${o.strategy}"; list them with hl strategies`);
  const params = { ...defaultParams(strategy), ...(o.params ?? {}) };
  let paperFeeRates = fillFeeRates(BASE_TIER);
  const run = async (mode: "mock" | "dry-run"): Promise<RunSummary> => {
    const market = new ReplayedMarket(o.seed, o.balanceUsd, o.volatility ?? DEFAULT_VOLATILITY, o.referred);
    const account = market.paperAccount();
    if (account.fees) paperFeeRates = account.fees;
    const paper = mode === "dry-run" ? new PaperGateway(account) : undefined;
    const gateway: OrderGateway = paper ?? new VenueGateway(market);
    const dataDir = join(o.dataDir, mode);
    mkdirSync(dataDir, { recursive: true });
    const engine = new Engine({
      strategy,
      params,
      instrument: INSTRUMENT,
      market: paper ? paper.watch(market) : market,
      gateway,
      dataDir,
      tickMs: 0,
      maxTicks: o.ticks,
      resume: false,
      limits: DEFAULT_RISK_LIMITS,
      requoteBps: 2,
      mode,
      network: "paper",
      log: () => undefined,
    });
    await engine.run();
    return summarize(await gateway.fills(INSTRUMENT, 0), market.mid());
  };
  const sim = await run("mock");
  const dryRun = await run("dry-run");
  const minus = (a: string, b: string) => wire(dec(a).minus(b));
  return {
    strategy: o.strategy,
    seed: o.seed,
    ticks: o.ticks,
    referred: o.referred ?? false,
    paperFeeRates,
    sim,
    dryRun,
    difference: {
      fills: dryRun.fills - sim.fills,
      volume: minus(dryRun.volume, sim.volume),
      fees: minus(dryRun.fees, sim.fees),
      pnl: minus(dryRun.pnl, sim.pnl),
    },
  };
}

function summarize(fills: readonly GatewayFill[], finalMid: number): RunSummary {
  let cash: Dec = new D(0);
  let qty: Dec = new D(0);
  let volume: Dec = new D(0);
  let fees: Dec = new D(0);
  let liquidations = 0;
  for (const f of fills) {
    if (f.liquidation) liquidations += 1;
    const ntl = dec(f.price).times(f.size);
    volume = volume.plus(ntl);
    fees = fees.plus(f.fee);
    if (f.side === "buy") {
      cash = cash.minus(ntl);
      qty = qty.plus(f.size);
    } else {
      cash = cash.plus(ntl);
      qty = qty.minus(f.size);
    }
  }
  const pnl = cash.minus(fees).plus(qty.times(finalMid)).toDecimalPlaces(6);
  return {
    fills: fills.length,
    liquidations,
    volume: wire(volume.toDecimalPlaces(6)),
    fees: wire(fees.toDecimalPlaces(6)),
    pnl: wire(pnl),
    position: wire(qty),
  };
}

function limit(isBuy: boolean, price: string, size: string, tif: "Gtc" | "Ioc" | "Alo"): WireOrder {
  return { a: ASSET, b: isBuy, p: price, s: size, r: false, t: { limit: { tif } } };
}

/** A price on ETH's grid: 5 significant figures, at most 2 decimals. */
function px(x: number): string {
  return String(Number(Number(x.toPrecision(5)).toFixed(2)));
}

function sz(x: number): string {
  return x.toFixed(SZ_DECIMALS);
}

function restingOids(data: unknown): number[] {
  const statuses = (data as { statuses: { resting?: { oid: number } }[] }).statuses;
  return statuses.flatMap((s) => (s.resting ? [s.resting.oid] : []));
}

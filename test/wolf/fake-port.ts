import { D, dec, wire } from "../../src/core/decimal.ts";
import { classifyRejection } from "../../src/exchange/rejections.ts";
import type { Candle } from "../../src/signals/candles.ts";
import type { MarketCtx } from "../../src/signals/market.ts";
import type {
  AccountFill,
  ExchangePosition,
  IocRequest,
  IocResult,
  MarketInfo,
  ResolvedIoc,
  UnresolvedOrder,
  WolfPort,
} from "../../src/wolf/port.ts";

/** An in-memory exchange for runner tests: positions and fills follow the IOCs it accepts. */
export class FakePort implements WolfPort {
  clock = Date.UTC(2026, 0, 5, 12, 0, 0);
  prices = new Map<string, number>();
  oi = new Map<string, number>();
  volume4h = new Map<string, number>();
  funding = new Map<string, number>();
  pos = new Map<string, { szi: InstanceType<typeof D>; entry: InstanceType<typeof D> }>();
  fills: AccountFill[] = [];
  orders: IocRequest[] = [];
  /** fraction of each order that fills (1 = all); 0 → "unfilled" */
  fillRatio = 1;
  feeRate = 0.00045;
  private oidSeq = 1000;
  private listeners: ((m: Record<string, string>) => void)[] = [];

  constructor(coins: Record<string, number>) {
    for (const [c, p] of Object.entries(coins)) {
      this.prices.set(c, p);
      this.oi.set(c, 100_000);
      this.volume4h.set(c, 0);
      this.funding.set(c, 0.00001);
    }
  }

  now(): number {
    return this.clock;
  }

  async markets(): Promise<MarketCtx[]> {
    return [...this.prices].map(([name, mark]) => ({
      name,
      volume_24h: 6_000_000,
      funding_rate: this.funding.get(name) ?? 0,
      open_interest: this.oi.get(name) ?? 0,
      open_interest_usd: (this.oi.get(name) ?? 0) * mark,
      mark_price: mark,
      delisted: false,
    }));
  }

  /** A pump's volume is traded in the 4h bar forming now (bars that closed never change). */
  async candles(coin: string, interval: string, _s: number, end: number): Promise<Candle[]> {
    const v = this.volume4h.get(coin) ?? 0;
    if (interval !== "4h" || v === 0) return [];
    const px = this.prices.get(coin)!;
    const t = Math.floor(Math.min(end, this.clock) / 14_400_000) * 14_400_000;
    return [{ t, T: t + 14_400_000 - 1, o: px, h: px, l: px, c: px, v }];
  }

  async mids(): Promise<Record<string, string>> {
    return Object.fromEntries([...this.prices].map(([c, p]) => [c, String(p)]));
  }

  async positions(): Promise<ExchangePosition[]> {
    return [...this.pos]
      .filter(([, p]) => !p.szi.isZero())
      .map(([coin, p]) => ({ coin, szi: wire(p.szi), entryPx: wire(p.entry) }));
  }

  async marketInfo(coin: string): Promise<MarketInfo> {
    return { instrument: this.instrumentOf(coin), szDecimals: 3, maxLeverage: 50 };
  }

  instrumentOf(coin: string): string {
    return `${coin}-PERP`;
  }

  async setLeverage(): Promise<void> {}

  /** The next N orders are executed, but their answer is lost (as after a timeout). */
  loseAnswers = 0;
  /** resolveIoc fails this many times first (the exchange cannot be asked yet). */
  unreachableResolves = 0;
  private executed = new Map<string, IocResult>();

  /** The next orders are refused with these texts (not executed). */
  refusals: string[] = [];

  /**
   * Called as each order is about to go out (after the runner heard of it): throw to stand for a
   * process killed before the request left; return to let the exchange execute it.
   */
  atSend: ((req: IocRequest) => void) | undefined;

  /** What the exchange is asked about an order whose answer never came. */
  private unresolvedOf(req: IocRequest): UnresolvedOrder {
    return {
      cloid: req.cloid,
      sent_at_ms: this.clock,
      expires_after_ms: this.clock + 15_000,
      order: { coin: req.coin, side: req.side, size: req.size },
    };
  }

  async ioc(req: IocRequest): Promise<IocResult> {
    req.onSending?.(this.unresolvedOf(req));
    this.atSend?.(req);
    const refusal = this.refusals.shift();
    if (refusal !== undefined) {
      this.orders.push(req);
      return { status: "unfilled", message: refusal, rejection: classifyRejection(refusal) };
    }
    const res = await this.execute(req);
    this.executed.set(req.cloid, res);
    if (this.loseAnswers > 0) {
      this.loseAnswers--;
      return {
        status: "unknown",
        message: "request timed out after sending",
        unresolved: this.unresolvedOf(req),
      };
    }
    return res;
  }

  async resolveIoc(u: UnresolvedOrder): Promise<ResolvedIoc> {
    if (this.unreachableResolves > 0) {
      this.unreachableResolves--;
      throw new Error("exchange unreachable");
    }
    const r = this.executed.get(u.cloid);
    if (r && r.status !== "unknown") return r;
    // An order the exchange does not know may still arrive until its expiry has passed.
    if (this.clock <= u.expires_after_ms) throw new Error("order not known yet; it may still arrive");
    return { status: "unfilled", message: "order never reached the exchange" };
  }

  private async execute(req: IocRequest): Promise<IocResult> {
    this.orders.push(req);
    const px = this.prices.get(req.coin)!;
    const cur = this.pos.get(req.coin) ?? { szi: new D(0), entry: new D(0) };
    let size = dec(req.size).times(this.fillRatio).toDecimalPlaces(3, D.ROUND_DOWN);
    if (req.reduceOnly) {
      const closing = req.side === "buy" ? cur.szi.lt(0) : cur.szi.gt(0);
      if (!closing) return { status: "unfilled", message: "Reduce only order would increase position" };
      size = D.min(size, cur.szi.abs());
    }
    if (size.lte(0)) return { status: "unfilled", message: "Order could not immediately match" };
    const signedSz = req.side === "buy" ? size : size.negated();
    const next = cur.szi.plus(signedSz);
    const entry =
      cur.szi.isZero() || cur.szi.isNeg() !== signedSz.isNeg()
        ? next.isZero()
          ? new D(0)
          : dec(px)
        : cur.entry;
    this.pos.set(req.coin, { szi: next, entry: cur.szi.isZero() ? dec(px) : entry });
    const oid = String(this.oidSeq++);
    const fee = wire(size.times(px).times(this.feeRate));
    this.fills.push({
      coin: req.coin,
      side: req.side,
      size: wire(size),
      price: String(px),
      fee,
      time: this.clock,
      oid,
    });
    return { status: "filled", oid, size: wire(size), price: String(px), fee };
  }

  async fillsSince(coin: string, startMs: number): Promise<AccountFill[]> {
    return this.fills.filter((f) => f.coin === coin && f.time >= startMs);
  }

  whales = new Map<string, { coin: string; szi: number; entry_px: number }[]>();

  async walletPositions(address: string) {
    return this.whales.get(address) ?? [];
  }

  async subscribeMids(
    l: (m: Record<string, string>) => void,
    _onFailure?: (reason: string) => void,
  ): Promise<() => Promise<void>> {
    this.listeners.push(l);
    return async () => {
      this.listeners = this.listeners.filter((x) => x !== l);
    };
  }

  /** Move a price and push it on the stream (like the sim world's /sim/price). */
  setPrice(coin: string, px: number): void {
    this.prices.set(coin, px);
    for (const l of this.listeners) l({ [coin]: String(px) });
  }

  /** Make `coin` an IMMEDIATE mover on the next scan: OI +20 %, 4h volume ×8, price up. */
  pump(coin: string): void {
    this.oi.set(coin, (this.oi.get(coin) ?? 0) * 1.2);
    const px = Number((this.prices.get(coin)! * 1.001).toFixed(4));
    this.prices.set(coin, px);
    this.volume4h.set(coin, (8_000_000 / px) * 1);
  }
}

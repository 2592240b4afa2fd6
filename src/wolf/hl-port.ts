import { dec } from "../core/decimal.ts";
import type { OrderResult, SentOrder } from "../exchange/actions.ts";
import type { Hex } from "../exchange/config.ts";
import { prepareDexMargin } from "../exchange/dex-margin.ts";
import type { Address } from "../exchange/index.ts";
import { coinToInstrument, type HlClient, slippagePrice } from "../exchange/index.ts";
import { OrderOutcomeUnknownError, type PendingOrder } from "../exchange/order-outcome.ts";
import { classifyRejection, rejectionOf } from "../exchange/rejections.ts";
import { dexOfCoin } from "../exchange/symbols.ts";
import type { BackstopPort } from "../guard/backstops.ts";
import { HlBackstopPort } from "../guard/hl-backstops.ts";
import { parseCandles } from "../signals/candles.ts";
import { type MarketCtx, parseMarkets } from "../signals/market.ts";
import type {
  AccountFill,
  ExchangePosition,
  IocRequest,
  IocResult,
  MarketInfo,
  ResolvedIoc,
  UnresolvedOrder,
  WolfPort,
} from "./port.ts";

/** WolfPort over the shared Hyperliquid client (paper, testnet or mainnet alike). */
export class HlWolfPort implements WolfPort {
  readonly backstops: BackstopPort;

  constructor(
    private readonly client: HlClient,
    /** Where a change the port makes to the account (dex abstraction turned on) is said. */
    private readonly log: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
  ) {
    this.backstops = new HlBackstopPort(client);
  }

  now(): number {
    return Date.now();
  }

  /** Markets are read once per tick even when movers and the scanner both ask (request weight). */
  private marketsMemo: { at: number; value: Promise<MarketCtx[]> } | undefined;

  markets(): Promise<MarketCtx[]> {
    const now = Date.now();
    if (this.marketsMemo && now - this.marketsMemo.at < 2_000) return this.marketsMemo.value;
    const value = this.fetchMarkets();
    this.marketsMemo = { at: now, value };
    value.catch(() => {
      this.marketsMemo = undefined;
    });
    return value;
  }

  private async fetchMarkets(): Promise<MarketCtx[]> {
    const all = await this.client.allMetaAndAssetCtxs();
    return all.flatMap(({ dex, meta: [meta, ctxs] }) =>
      parseMarkets(
        {
          universe: meta.universe.map((u) => ({
            ...u,
            name: dex && !u.name.includes(":") ? `${dex}:${u.name}` : u.name,
          })),
        },
        ctxs,
      ),
    );
  }

  async candles(coin: string, interval: "15m" | "1h" | "4h", startTime: number, endTime: number) {
    return parseCandles(await this.client.candleSnapshot({ coin, interval, startTime, endTime }));
  }

  mids(): Promise<Record<string, string>> {
    return this.client.allMidsMerged();
  }

  async positions(): Promise<ExchangePosition[]> {
    const summary = await this.client.accountSummary();
    return summary.positions.map((p) => ({
      coin: p.dex && !p.coin.includes(":") ? `${p.dex}:${p.coin}` : p.coin,
      szi: p.szi,
      entryPx: p.entryPx,
    }));
  }

  async marketInfo(coin: string): Promise<MarketInfo> {
    const m = await this.client.market(coinToInstrument(coin));
    return { instrument: m.instrument, szDecimals: m.szDecimals, maxLeverage: m.maxLeverage };
  }

  instrumentOf(coin: string): string {
    return coinToInstrument(coin);
  }

  /** HIP-3 dexes already margined from the main balance (dex abstraction, once on, stays on). */
  private readonly onMainBalance = new Set<string>([""]);

  /** Before each entry: the market's leverage, and on a HIP-3 dex USDC to margin it (dex-margin.ts). */
  async setLeverage(coin: string, leverage: number): Promise<void> {
    const dex = dexOfCoin(coin);
    if (!this.onMainBalance.has(dex) && (await prepareDexMargin(this.client, dex, this.log)) !== "dex")
      this.onMainBalance.add(dex);
    await this.client.updateLeverage({ instrument: coinToInstrument(coin), leverage });
  }

  async ioc(req: IocRequest): Promise<IocResult> {
    try {
      return await this.sendIoc(req);
    } catch (err) {
      if (!(err instanceof OrderOutcomeUnknownError) || !err.pending[0]) throw err;
      return { status: "unknown", message: err.message, unresolved: unresolvedOf(err.pending[0]) };
    }
  }

  /** Asks until the exchange can tell (the order's expiry bounds the wait); throws if it cannot be asked. */
  async resolveIoc(u: UnresolvedOrder): Promise<ResolvedIoc> {
    const pending: PendingOrder = {
      order: { ...(u.order as unknown as SentOrder), cloid: u.cloid as Hex },
      sentAtMs: u.sent_at_ms,
      expiresAfterMs: u.expires_after_ms,
    };
    const r = await this.client.resolveOrder(pending, { maxWaitMs: 10_000 });
    if (r.status === "filled" && !dec(r.totalSz).isZero())
      return {
        status: "filled",
        oid: String(r.oid),
        size: r.totalSz,
        price: r.avgPx,
        fee: await this.feeOf(r.oid, u.sent_at_ms),
      };
    return { status: "unfilled", message: r.status === "error" ? r.message : "IOC did not fill" };
  }

  private async sendIoc(req: IocRequest): Promise<IocResult> {
    const started = Date.now();
    const instrument = coinToInstrument(req.coin);
    const r = await this.placeIoc(instrument, req).catch((err: unknown) => {
      const rejection = rejectionOf(err);
      if (!rejection) throw err;
      return { status: "error" as const, message: rejection.message, rejection };
    });
    if (r.status === "error")
      return {
        status: "unfilled",
        message: r.message,
        rejection: "rejection" in r ? r.rejection : classifyRejection(r.message),
      };
    if (r.status !== "filled" || dec(r.totalSz).isZero())
      return { status: "unfilled", message: "IOC did not fill" };
    return {
      status: "filled",
      oid: String(r.oid),
      size: r.totalSz,
      price: r.avgPx,
      fee: await this.feeOf(r.oid, started),
    };
  }

  /** The IOC itself: priced off the caller's fresh mid when given, else off the exchange's mid. */
  private async placeIoc(instrument: string, req: IocRequest): Promise<OrderResult> {
    const onSending = req.onSending;
    const send = onSending
      ? {
          onSending: (pending: readonly PendingOrder[]) => {
            if (pending[0]) onSending(unresolvedOf(pending[0]));
          },
        }
      : {};
    if (req.mid === undefined)
      return this.client.marketOrder(
        {
          instrument,
          side: req.side,
          size: req.size,
          slippage: String(req.slippage),
          reduceOnly: req.reduceOnly,
          cloid: req.cloid,
        },
        send,
      );
    const { szDecimals } = await this.client.market(instrument);
    return this.client.order(
      {
        instrument,
        side: req.side,
        size: req.size,
        price: slippagePrice(req.mid, req.side, req.slippage, szDecimals),
        tif: "Ioc",
        reduceOnly: req.reduceOnly,
        cloid: req.cloid,
      },
      send,
    );
  }

  /** The fee the exchange charged for an order (sum over its fills); "0" if the fills are not visible yet. */
  private async feeOf(oid: number, since: number): Promise<string> {
    try {
      const fills = await this.client.userFillsByTime({ startTime: since - 60_000 });
      return fills
        .filter((f) => f.oid === oid)
        .reduce((s, f) => s.plus(f.fee), dec(0))
        .toFixed();
    } catch {
      return "0";
    }
  }

  async fillsSince(coin: string, startMs: number): Promise<AccountFill[]> {
    const fills = await this.client.userFillsSince({ startTime: startMs });
    return fills
      .filter((f) => f.coin === coin)
      .map((f) => ({
        coin: f.coin,
        side: f.side === "B" ? ("buy" as const) : ("sell" as const),
        size: f.sz,
        price: f.px,
        fee: f.fee,
        time: f.time,
        oid: String(f.oid),
        ...(f.dir === "Settlement" ? { settlement: true } : {}),
      }));
  }

  async walletPositions(address: string) {
    try {
      const st = await this.client.clearinghouseState({ user: address as Address });
      return st.assetPositions.map(({ position: p }) => ({
        coin: p.coin,
        szi: Number(p.szi),
        entry_px: Number(p.entryPx),
      }));
    } catch {
      return null;
    }
  }

  /** allMids of every dex, all or nothing: a dex that cannot be subscribed fails the whole call. */
  async subscribeMids(
    listener: (mids: Record<string, string>) => void,
    onFailure: (reason: string) => void = () => undefined,
  ): Promise<() => Promise<void>> {
    const stream = this.client.stream;
    const dexes = ["", ...(await this.client.hip3Dexes())];
    const settled = await Promise.allSettled(
      dexes.map((dex) =>
        stream.allMids(
          (e) => {
            if (!dex) return listener(e.mids);
            const prefixed: Record<string, string> = {};
            for (const [c, px] of Object.entries(e.mids)) prefixed[c.includes(":") ? c : `${dex}:${c}`] = px;
            listener(prefixed);
          },
          dex ? { dex } : {},
        ),
      ),
    );
    const subs = settled.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
    // Unsubscribing waits for the server's ack; a dead connection never gives one, so wait briefly.
    const unsubscribe = async () => {
      detach();
      const all = Promise.all(subs.map((s) => s.unsubscribe().catch(() => undefined)));
      await Promise.race([all, new Promise((r) => setTimeout(r, 1000).unref())]);
    };
    const failed = settled.flatMap((r, i) =>
      r.status === "rejected" ? [`${dexes[i] || "main"}: ${(r.reason as Error).message}`] : [],
    );
    const stopWatching = stream.onDisconnect(() => onFailure("WebSocket connection lost"));
    const aborts = subs.map((s, i) => {
      const onAbort = () => onFailure(`${dexes[i] || "main"} allMids could not be restored`);
      s.failureSignal.addEventListener("abort", onAbort, { once: true });
      return () => s.failureSignal.removeEventListener("abort", onAbort);
    });
    function detach() {
      stopWatching();
      for (const off of aborts) off();
    }
    if (failed.length) {
      await unsubscribe();
      throw new Error(`price stream incomplete (${failed.join("; ")})`);
    }
    return unsubscribe;
  }
}

/** What the exchange is asked about an order (kept in state.json until it is resolved). */
function unresolvedOf(p: PendingOrder): UnresolvedOrder {
  return {
    cloid: p.order.cloid,
    sent_at_ms: p.sentAtMs,
    expires_after_ms: p.expiresAfterMs,
    order: { ...p.order },
  };
}

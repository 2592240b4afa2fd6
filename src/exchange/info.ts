import type {
  ActiveAssetDataResponse,
  AllMidsResponse,
  ApprovedBuildersResponse,
  CandleSnapshotResponse,
  ClearinghouseStateResponse,
  FundingHistoryResponse,
  L2BookResponse,
  MetaAndAssetCtxsResponse,
  MetaResponse,
  OpenOrdersResponse,
  OrderStatusResponse,
  PerpDexsResponse,
  PredictedFundingsResponse,
  RecentTradesResponse,
  SpotClearinghouseStateResponse,
  UserAbstractionResponse,
  UserFeesResponse,
  UserFillsResponse,
  UserFundingResponse,
  UserNonFundingLedgerUpdatesResponse,
} from "@nktkas/hyperliquid";
import { InfoClient } from "@nktkas/hyperliquid";
import { D } from "../core/decimal.ts";
import { UserError } from "../core/errors.ts";
import type { Address, Hex } from "./config.ts";
import {
  assetContextMaxAgeMs,
  BUILDER_FEE_MAX_AGE_MS,
  SYMBOLS_MAX_AGE_MS,
  sharedRead,
} from "./shared-reads.ts";
import { coinToInstrument, dexOfCoin, instrumentToCoin, type Market, SymbolTable } from "./symbols.ts";
import type { ResilientTransport } from "./transport.ts";

/** Candle intervals Hyperliquid serves. */
export type CandleInterval =
  | "1m"
  | "3m"
  | "5m"
  | "15m"
  | "30m"
  | "1h"
  | "2h"
  | "4h"
  | "8h"
  | "12h"
  | "1d"
  | "3d"
  | "1w"
  | "1M";

export type Fill = UserFillsResponse[number];
type Position = ClearinghouseStateResponse["assetPositions"][number]["position"];
export type OpenOrder = OpenOrdersResponse[number];

/** One dex's clearinghouse state, tagged with its dex ("" = main). */
export interface DexState {
  dex: string;
  state: ClearinghouseStateResponse;
}

/** An account over the main dex and every HIP-3 dex. Decimal strings, summed in decimal. */
export interface AccountSummary {
  user: Address;
  /** Σ marginSummary.accountValue over all dexes. */
  accountValue: string;
  /** Σ withdrawable over all dexes. */
  withdrawable: string;
  /** Σ marginSummary.totalMarginUsed over all dexes. */
  marginUsed: string;
  /** Σ marginSummary.totalNtlPos over all dexes. */
  totalNotional: string;
  /** Every open position, with the dex it lives on and our instrument name. */
  positions: (Position & { dex: string; instrument: string })[];
  perDex: DexState[];
}

/** A perp dex's collateral: its spot token name and the `NAME:0x<tokenId>` form `sendAsset` takes. */
interface CollateralToken {
  name: string;
  wire: string;
}

/** Fills per page of userFillsByTime (Hyperliquid's cap). */
const FILLS_PAGE = 2000;
/** Records per page of fundingHistory. */
const FUNDING_PAGE = 500;
/** Upper bound on pages of one auto-paginated read, so a misbehaving server cannot loop us forever. */
const MAX_PAGES = 200;

/**
 * Read-only Hyperliquid calls, typed with the SDK's response types (decimal strings stay strings).
 * Methods that concern an account take `user` and fall back to the client's own address.
 */
export class HlInfo {
  /** The SDK's info client, on the same budgeted transport (escape hatch for calls not wrapped here). */
  readonly infoClient: InfoClient;
  private symbolCache: Promise<SymbolTable> | undefined;
  private dexCache: Promise<string[]> | undefined;

  constructor(
    readonly transport: ResilientTransport,
    /** The signing wallet's address, if any: default `user` of account reads. */
    readonly address: Address | undefined,
  ) {
    this.infoClient = new InfoClient({ transport });
  }

  protected userOr(user: Address | undefined): Address {
    const resolved = user ?? this.address;
    if (!resolved) throw new UserError("no wallet configured: set HL_PRIVATE_KEY (or pass a user address)");
    return resolved;
  }

  // ── markets ────────────────────────────────────────────────────────────────────────────────

  /** Perp dexes; index 0 is null (the main dex), then HIP-3 dexes in asset-id order. */
  perpDexs(): Promise<PerpDexsResponse> {
    return this.infoClient.perpDexs();
  }

  /**
   * Names of the HIP-3 dexes ("" for main is not included). Cached with the symbols (dexes are rarely
   * deployed; `refreshSymbols()` reloads both), so per-tick account reads cost no extra weight.
   */
  hip3Dexes(): Promise<string[]> {
    if (!this.dexCache) {
      this.dexCache = this.sharedPerpDexs(false).then((dexes) =>
        dexes.slice(1).flatMap((d) => (d ? [d.name] : [])),
      );
      this.dexCache.catch(() => {
        this.dexCache = undefined;
      });
    }
    return this.dexCache;
  }

  /** Universe of one dex (main when `dex` is omitted or ""). */
  meta(dex?: string): Promise<MetaResponse> {
    return this.infoClient.meta(dex ? { dex } : {});
  }

  /** Universe and asset contexts of one dex, read now. */
  metaAndAssetCtxs(dex?: string): Promise<MetaAndAssetCtxsResponse> {
    return this.infoClient.metaAndAssetCtxs(dex ? { dex } : {});
  }

  /**
   * `metaAndAssetCtxs` for readers that poll it (strategies, scanners, feeds): one read per dex per
   * `maxAgeMs` (HL_ASSET_CTX_MAX_AGE_S, default 60 s) shared by every client of this process on the
   * same API server, instead of a weight-20 read per caller per tick.
   */
  assetContexts(dex = "", maxAgeMs = assetContextMaxAgeMs()): Promise<MetaAndAssetCtxsResponse> {
    return this.shared(`metaAndAssetCtxs|${dex}`, maxAgeMs, () => this.metaAndAssetCtxs(dex));
  }

  /** Shared asset contexts (see `assetContexts`) of the main dex and every HIP-3 dex. */
  async allMetaAndAssetCtxs(): Promise<{ dex: string; meta: MetaAndAssetCtxsResponse }[]> {
    const dexes = ["", ...(await this.hip3Dexes())];
    return Promise.all(dexes.map(async (dex) => ({ dex, meta: await this.assetContexts(dex) })));
  }

  /** Every tradable market of every dex (cached; `refreshSymbols()` reloads). */
  symbols(): Promise<SymbolTable> {
    if (!this.symbolCache) {
      this.symbolCache = this.loadSymbols();
      this.symbolCache.catch(() => {
        this.symbolCache = undefined;
      });
    }
    return this.symbolCache;
  }

  refreshSymbols(): Promise<SymbolTable> {
    this.dexCache = undefined;
    this.symbolCache = this.loadSymbols(true);
    this.symbolCache.catch(() => {
      this.symbolCache = undefined;
    });
    return this.symbolCache;
  }

  /** Resolve an instrument (`ETH-PERP`, `vxx-usdyp`, `xyz:SPCX`) to its market: coin, asset id, decimals. */
  async market(instrument: string): Promise<Market> {
    return (await this.symbols()).resolve(instrument);
  }

  /**
   * The market list, shared with the other clients of this process (`fresh`: read it again now):
   * `perpDexs` and one `allPerpMetas` (every dex's meta in perpDexs order, weight 20) instead of a
   * `meta` per dex (20 each); should the answer not line up with the dexes, a `meta` per dex.
   */
  private async loadSymbols(fresh = false): Promise<SymbolTable> {
    const { dexes, metas } = await this.metasByDex(fresh);
    return SymbolTable.fromMeta(dexes, metas);
  }

  /**
   * Every dex's meta by name ("" the main one), shared with the market list: `perpDexs` and one
   * `allPerpMetas` (every dex's meta in perpDexs order, weight 20) instead of a `meta` per dex (20
   * each); should the answer not line up with the dexes, a `meta` per dex.
   */
  private async metasByDex(
    fresh: boolean,
  ): Promise<{ dexes: PerpDexsResponse; metas: Map<string, MetaResponse> }> {
    const [dexes, all] = await Promise.all([
      this.sharedPerpDexs(fresh),
      this.shared("allPerpMetas", SYMBOLS_MAX_AGE_MS, () => this.infoClient.allPerpMetas(), fresh),
    ]);
    const names = ["", ...dexes.slice(1).map((d) => d?.name ?? "")];
    if (Array.isArray(all) && all.length === dexes.length)
      return {
        dexes,
        metas: new Map(
          names.flatMap((dex, i) => (all[i] && (i === 0 || dex) ? [[dex, all[i]] as const] : [])),
        ),
      };
    const metas = await Promise.all(
      names
        .filter((dex, i) => i === 0 || dex)
        .map(
          async (dex) =>
            [dex, await this.shared(`meta|${dex}`, SYMBOLS_MAX_AGE_MS, () => this.meta(dex), fresh)] as const,
        ),
    );
    return { dexes, metas: new Map(metas) };
  }

  /**
   * The token each perp dex margins with ("" the main one), as `sendAsset` names it
   * (`NAME:0x<tokenId>` from `spotMeta`): its meta's `collateralToken` is an index into spot tokens.
   */
  async collateralTokens(): Promise<Map<string, CollateralToken>> {
    const [{ metas }, spot] = await Promise.all([
      this.metasByDex(false),
      this.shared("spotMeta", SYMBOLS_MAX_AGE_MS, () => this.infoClient.spotMeta()),
    ]);
    const out = new Map<string, CollateralToken>();
    for (const [dex, meta] of metas) {
      const token = spot.tokens.find((t) => t.index === meta.collateralToken);
      if (token) out.set(dex, { name: token.name, wire: `${token.name}:${token.tokenId}` });
    }
    return out;
  }

  private sharedPerpDexs(fresh: boolean): Promise<PerpDexsResponse> {
    return this.shared("perpDexs", SYMBOLS_MAX_AGE_MS, () => this.perpDexs(), fresh);
  }

  /** A read shared by the clients of this process on the same API server (see shared-reads.ts). */
  private shared<T>(what: string, maxAgeMs: number, load: () => Promise<T>, fresh = false): Promise<T> {
    const server = this.transport.apiUrl;
    return server ? sharedRead(`${server}|${what}`, maxAgeMs, load, { fresh }) : load();
  }

  // ── prices ─────────────────────────────────────────────────────────────────────────────────

  /** Mid prices of one dex, by exchange coin. */
  allMids(dex?: string): Promise<AllMidsResponse> {
    return this.infoClient.allMids(dex ? { dex } : {});
  }

  /** Mid prices of the main dex and every HIP-3 dex in one map (HIP-3 keys carry their `dex:` prefix). */
  async allMidsMerged(): Promise<Record<string, string>> {
    const dexes = ["", ...(await this.hip3Dexes())];
    const maps = await Promise.all(dexes.map((dex) => this.allMids(dex)));
    const merged: Record<string, string> = {};
    maps.forEach((mids, i) => {
      const dex = dexes[i] ?? "";
      for (const [coin, mid] of Object.entries(mids))
        merged[dex && !coin.includes(":") ? `${dex}:${coin}` : coin] = mid;
    });
    return merged;
  }

  /** Order book of an instrument or coin (up to 20 levels a side). */
  l2Book(
    instrumentOrCoin: string,
    opts: { nSigFigs?: 2 | 3 | 4 | 5; mantissa?: 2 | 5 } = {},
  ): Promise<L2BookResponse> {
    return this.infoClient.l2Book({ coin: instrumentToCoin(instrumentOrCoin), ...opts });
  }

  /** The most recent trades of an instrument or coin (the public tape). */
  recentTrades(instrumentOrCoin: string): Promise<RecentTradesResponse> {
    return this.infoClient.recentTrades({ coin: instrumentToCoin(instrumentOrCoin) });
  }

  /** Candles (the most recent 5000 at most). */
  candleSnapshot(req: {
    coin: string;
    interval: CandleInterval;
    startTime: number;
    endTime?: number;
  }): Promise<CandleSnapshotResponse> {
    return this.infoClient.candleSnapshot({ ...req, coin: instrumentToCoin(req.coin) });
  }

  // ── account ────────────────────────────────────────────────────────────────────────────────

  /** Perp account state on one dex (main when `dex` is omitted). */
  clearinghouseState(opts: { user?: Address; dex?: string } = {}): Promise<ClearinghouseStateResponse> {
    const user = this.userOr(opts.user);
    return this.infoClient.clearinghouseState(opts.dex ? { user, dex: opts.dex } : { user });
  }

  /** The account over main + every HIP-3 dex: summed value, withdrawable, margin, and all positions. */
  async accountSummary(opts: { user?: Address } = {}): Promise<AccountSummary> {
    const user = this.userOr(opts.user);
    const dexes = ["", ...(await this.hip3Dexes())];
    const perDex = await Promise.all(
      dexes.map(async (dex) => ({ dex, state: await this.clearinghouseState({ user, dex }) })),
    );
    return summarizeAccount(user, perDex);
  }

  /** The account's leverage setting on one market and what it could trade there. */
  activeAssetData(opts: { user?: Address; instrument: string }): Promise<ActiveAssetDataResponse> {
    return this.infoClient.activeAssetData({
      user: this.userOr(opts.user),
      coin: instrumentToCoin(opts.instrument),
    });
  }

  /**
   * The account's fee rates (its VIP tier and staking discount in them), its referral discount and
   * its recent daily volume. Weight 20.
   */
  userFees(opts: { user?: Address } = {}): Promise<UserFeesResponse> {
    return this.infoClient.userFees({ user: this.userOr(opts.user) });
  }

  /** Whether HIP-3 dexes draw on the account's main perp balance (`null`: never set). */
  userDexAbstraction(opts: { user?: Address } = {}): Promise<boolean | null> {
    return this.infoClient.userDexAbstraction({ user: this.userOr(opts.user) });
  }

  /** The account's abstraction mode: `"default"` for a new account (never set), `"disabled"`, `"dexAbstraction"`, … */
  userAbstraction(opts: { user?: Address } = {}): Promise<UserAbstractionResponse> {
    return this.infoClient.userAbstraction({ user: this.userOr(opts.user) });
  }

  spotClearinghouseState(opts: { user?: Address } = {}): Promise<SpotClearinghouseStateResponse> {
    return this.infoClient.spotClearinghouseState({ user: this.userOr(opts.user) });
  }

  /** Resting orders on one dex (main when `dex` is omitted). */
  openOrders(opts: { user?: Address; dex?: string } = {}): Promise<OpenOrdersResponse> {
    const user = this.userOr(opts.user);
    return this.infoClient.openOrders(opts.dex ? { user, dex: opts.dex } : { user });
  }

  /** Resting orders on every dex. */
  async openOrdersAllDexes(opts: { user?: Address } = {}): Promise<OpenOrdersResponse> {
    const user = this.userOr(opts.user);
    const dexes = ["", ...(await this.hip3Dexes())];
    const lists = await Promise.all(dexes.map((dex) => this.openOrders({ user, dex })));
    return lists.flat();
  }

  /** Status of one order by oid (number) or client order id (`0x` + 32 hex). */
  orderStatus(oid: number | Hex, opts: { user?: Address } = {}): Promise<OrderStatusResponse> {
    return this.infoClient.orderStatus({ user: this.userOr(opts.user), oid });
  }

  /** The most recent fills (at most 2000). */
  userFills(opts: { user?: Address; aggregateByTime?: boolean } = {}): Promise<UserFillsResponse> {
    const { user, ...rest } = opts;
    return this.infoClient.userFills({ user: this.userOr(user), ...rest });
  }

  /** One page of fills in a time window (at most 2000, oldest first). */
  userFillsByTime(opts: {
    user?: Address;
    startTime: number;
    endTime?: number;
    aggregateByTime?: boolean;
  }): Promise<UserFillsResponse> {
    const { user, ...rest } = opts;
    return this.infoClient.userFillsByTime({ user: this.userOr(user), ...rest });
  }

  /** Every fill in a time window, following pages of 2000 (only the 10 000 most recent are reachable). */
  async userFillsSince(opts: {
    user?: Address;
    startTime: number;
    endTime?: number;
    aggregateByTime?: boolean;
  }): Promise<UserFillsResponse> {
    const user = this.userOr(opts.user);
    return paginateByTime(
      (startTime) => this.userFillsByTime({ ...opts, user, startTime }),
      opts.startTime,
      FILLS_PAGE,
      (f) => f.time,
      (f) => `${f.tid}:${f.oid}:${f.time}`,
    );
  }

  /** Funding settlements of a coin in a window, following pages of 500. */
  async fundingHistory(opts: {
    coin: string;
    startTime: number;
    endTime?: number;
  }): Promise<FundingHistoryResponse> {
    const coin = instrumentToCoin(opts.coin);
    return paginateByTime(
      (startTime) =>
        this.infoClient.fundingHistory({
          coin,
          startTime,
          ...(opts.endTime !== undefined ? { endTime: opts.endTime } : {}),
        }),
      opts.startTime,
      FUNDING_PAGE,
      (r) => r.time,
      (r) => `${r.coin}:${r.time}`,
    );
  }

  /** Predicted next funding per coin and venue (main dex only, as on Hyperliquid). */
  predictedFundings(): Promise<PredictedFundingsResponse> {
    return this.infoClient.predictedFundings();
  }

  /** Funding payments of an account. */
  userFunding(
    opts: { user?: Address; startTime?: number; endTime?: number } = {},
  ): Promise<UserFundingResponse> {
    const { user, ...rest } = opts;
    return this.infoClient.userFunding({ user: this.userOr(user), ...rest });
  }

  /** Deposits, withdrawals, transfers and other non-funding ledger updates. */
  userNonFundingLedgerUpdates(
    opts: { user?: Address; startTime?: number; endTime?: number } = {},
  ): Promise<UserNonFundingLedgerUpdatesResponse> {
    const { user, ...rest } = opts;
    return this.infoClient.userNonFundingLedgerUpdates({ user: this.userOr(user), ...rest });
  }

  /**
   * Builder fee the user has approved for `builder`, in tenths of a basis point; shared by the
   * clients of this process for BUILDER_FEE_MAX_AGE_MS (it changes only when the user approves;
   * `fresh`: read it again now, as after an approval).
   */
  maxBuilderFee(opts: { builder: Address; user?: Address; fresh?: boolean }): Promise<number> {
    const user = this.userOr(opts.user);
    return this.shared(
      `maxBuilderFee|${user.toLowerCase()}|${opts.builder.toLowerCase()}`,
      BUILDER_FEE_MAX_AGE_MS,
      () => this.infoClient.maxBuilderFee({ user, builder: opts.builder }),
      opts.fresh,
    );
  }

  /** Builders the user has approved. */
  approvedBuilders(opts: { user?: Address } = {}): Promise<ApprovedBuildersResponse> {
    return this.infoClient.approvedBuilders({ user: this.userOr(opts.user) });
  }
}

/** Sum per-dex clearinghouse states in decimal. */
export function summarizeAccount(user: Address, perDex: DexState[]): AccountSummary {
  let accountValue = new D(0);
  let withdrawable = new D(0);
  let marginUsed = new D(0);
  let totalNotional = new D(0);
  const positions: AccountSummary["positions"] = [];
  for (const { dex, state } of perDex) {
    accountValue = accountValue.plus(state.marginSummary.accountValue);
    withdrawable = withdrawable.plus(state.withdrawable);
    marginUsed = marginUsed.plus(state.marginSummary.totalMarginUsed);
    totalNotional = totalNotional.plus(state.marginSummary.totalNtlPos);
    for (const { position } of state.assetPositions) {
      if (new D(position.szi).isZero()) continue;
      const coin = position.coin;
      positions.push({ ...position, dex: dex || dexOfCoin(coin), instrument: coinInstrument(coin, dex) });
    }
  }
  return {
    user,
    accountValue: accountValue.toFixed(),
    withdrawable: withdrawable.toFixed(),
    marginUsed: marginUsed.toFixed(),
    totalNotional: totalNotional.toFixed(),
    positions,
    perDex,
  };
}

/** Our instrument name for a position's coin (HIP-3 states may report coins with or without the dex prefix). */
function coinInstrument(coin: string, dex: string): string {
  return coinToInstrument(dex && !coin.includes(":") ? `${dex}:${coin}` : coin);
}

/**
 * Follow time-ordered pages: ask from `startTime`, then from the last record's time, until a page is
 * shorter than `pageSize`. Records at the boundary time appear in both pages; `key` de-duplicates them.
 */
export async function paginateByTime<T>(
  fetchPage: (startTime: number) => Promise<readonly T[]>,
  startTime: number,
  pageSize: number,
  timeOf: (record: T) => number,
  key: (record: T) => string,
): Promise<T[]> {
  const out: T[] = [];
  const seen = new Set<string>();
  let from = startTime;
  for (let page = 0; page < MAX_PAGES; page++) {
    const records = await fetchPage(from);
    let added = 0;
    for (const r of records) {
      const k = key(r);
      if (seen.has(k)) continue;
      seen.add(k);
      out.push(r);
      added++;
    }
    const last = records[records.length - 1];
    if (records.length < pageSize || last === undefined || added === 0) break;
    from = timeOf(last);
  }
  return out;
}

/** POST /info: each request type answered in Hyperliquid's exact response shape. */
import { D, type Dec } from "../../core/decimal.ts";
import { requestCap } from "../auth/address-budget.ts";
import { type Address, VenueError } from "../venue.ts";
import { isInterval } from "./candle-intervals.ts";
import { type Clockwork, estimatedFunding, premiumNow } from "./clockwork.ts";
import { RECENT_TRADES, type VenueCore } from "./core.ts";
import { fmtScaled, mulDiv, POW10 } from "./fixed.ts";
import { txHash } from "./hash.ts";
import { SPOT_META, TIERED_MARGIN_TABLES } from "./markets.ts";
import {
  type InfoCtx as Ctx,
  type InfoHandler as Handler,
  type InfoRequest,
  userAccount,
} from "./queries/context.ts";
import { moreInfoHandlers } from "./queries/index.ts";
import { referralSides } from "./referrals.ts";
import {
  ratio,
  renderCandle,
  renderFill,
  renderFrontendOrder,
  renderFunding,
  renderOpenOrder,
} from "./render.ts";
import type { Account, Market } from "./types.ts";

export type { InfoRequest } from "./queries/context.ts";

const MAX_FILLS_PER_RESPONSE = 2000;
const MAX_FUNDING_PER_PAGE = 500;
const MAX_L2_LEVELS = 20;
const UNKNOWN_TYPE = "Failed to deserialize the JSON body into the target type";

const handlers: Record<string, Handler> = {
  meta: (c, r) => meta(c.core, dexIndex(c.core, r)),
  metaAndAssetCtxs: (c, r) => {
    const di = dexIndex(c.core, r);
    return [meta(c.core, di), dexMarkets(c.core, di).map((m) => assetCtx(c.core, m, c.now))];
  },
  allMids: (c, r) => {
    const out: Record<string, string> = {};
    for (const m of dexMarkets(c.core, dexIndex(c.core, r))) out[m.coin] = mid(c.core, m);
    return out;
  },
  l2Book: (c, r) => l2Book(c, r),
  candleSnapshot: (c, r) => {
    const q = r.req;
    if (!q || typeof q !== "object")
      throw new VenueError("candleSnapshot needs req {coin, interval, startTime}");
    const req = q as Record<string, unknown>;
    const m = market(c.core, req.coin);
    if (!isInterval(req.interval)) throw new VenueError(`Invalid interval: ${String(req.interval)}`);
    const interval = req.interval;
    const start = int(req.startTime, "startTime");
    const end = req.endTime === undefined || req.endTime === null ? c.now : int(req.endTime, "endTime");
    return m.candles.snapshot(interval, start, end, c.now).map((k) => renderCandle(m, interval, k));
  },
  clearinghouseState: (c, r) => clearinghouseState(c, account(c, r.user), dexIndex(c.core, r)),
  openOrders: (c, r) => openOrders(c, r).map(renderOpenOrder),
  frontendOpenOrders: (c, r) => openOrders(c, r).map(renderFrontendOrder),
  orderStatus: (c, r) => {
    const a = account(c, r.user);
    const o =
      typeof r.oid === "string" && r.oid.startsWith("0x")
        ? a.cloids.get(r.oid.toLowerCase())
        : a.orders.get(int(r.oid, "oid"));
    if (!o) return { status: "unknownOid" };
    return {
      status: "order",
      order: { order: renderFrontendOrder(o), status: o.status, statusTimestamp: o.statusTs },
    };
  },
  historicalOrders: (c, r) => {
    const a = account(c, r.user);
    const all = [...a.orders.values()].sort((x, y) => y.statusTs - x.statusTs || y.oid - x.oid);
    return all
      .slice(0, MAX_FILLS_PER_RESPONSE)
      .map((o) => ({ order: renderFrontendOrder(o), status: o.status, statusTimestamp: o.statusTs }));
  },
  userFills: (c, r) => {
    const a = account(c, r.user);
    const out: Record<string, unknown>[] = [];
    for (let i = a.fills.length - 1; i >= 0 && out.length < MAX_FILLS_PER_RESPONSE; i--) {
      out.push(renderFill(c.core.seed, a.fills[i]!));
    }
    return r.aggregateByTime === true ? aggregate(out) : out;
  },
  userFillsByTime: (c, r) => {
    const a = account(c, r.user);
    const start = int(r.startTime, "startTime");
    const end = optInt(r.endTime) ?? Number.MAX_SAFE_INTEGER;
    let picked = a.fills.filter((f) => f.time >= start && f.time <= end);
    if (r.reversed === true) picked = picked.reverse();
    const out = picked.slice(0, MAX_FILLS_PER_RESPONSE).map((f) => renderFill(c.core.seed, f));
    return r.aggregateByTime === true ? aggregate(out) : out;
  },
  fundingHistory: (c, r) => {
    const m = market(c.core, r.coin);
    const start = int(r.startTime, "startTime");
    const end = optInt(r.endTime) ?? Number.MAX_SAFE_INTEGER;
    return m.fundingHistory
      .between(start, end, MAX_FUNDING_PER_PAGE)
      .map((h) => ({ coin: m.coin, fundingRate: h.fundingRate, premium: h.premium, time: h.time }));
  },
  predictedFundings: (c) =>
    dexMarkets(c.core, 0).map((m) => [
      m.coin,
      [
        [
          "HlPerp",
          { fundingRate: estimatedFunding(m), nextFundingTime: c.clock.nextFunding, fundingIntervalHours: 1 },
        ],
      ],
    ]),
  userFunding: (c, r) => {
    const a = account(c, r.user);
    const start = optInt(r.startTime) ?? 0;
    const end = optInt(r.endTime) ?? Number.MAX_SAFE_INTEGER;
    return a.fundings
      .filter((p) => p.time >= start && p.time <= end)
      .slice(0, MAX_FUNDING_PER_PAGE)
      .map((p) => renderFunding(c.core.seed, p));
  },
  userNonFundingLedgerUpdates: (c, r) => {
    const a = account(c, r.user);
    const start = optInt(r.startTime) ?? 0;
    const end = optInt(r.endTime) ?? Number.MAX_SAFE_INTEGER;
    return a.ledger.filter((u) => u.time >= start && u.time <= end).slice(0, MAX_FILLS_PER_RESPONSE);
  },
  perpDexs: (c) => [
    null,
    ...c.core.dexes.slice(1).map((d, k) => {
      const markets = dexMarkets(c.core, k + 1);
      const coins = markets.map((m) => m.coin);
      return {
        name: d.name,
        fullName: d.fullName,
        deployer: d.deployer,
        oracleUpdater: null,
        feeRecipient: d.deployer,
        assetToStreamingOiCap: markets.map((m) => [m.coin, c.core.limitsOf(m).openInterestCapUsd.toFixed(1)]),
        subDeployers: [],
        deployerFeeScale: "1.0",
        lastDeployerFeeScaleChangeTime: "1970-01-01T00:00:00",
        assetToFundingMultiplier: coins.map((coin) => [coin, d.fundingMultiplier]),
        assetToFundingInterestRate: coins.map((coin) => [coin, d.fundingInterestRate]),
      };
    }),
  ],
  spotMeta: () => SPOT_META,
  spotMetaAndAssetCtxs: () => [
    SPOT_META,
    [
      {
        prevDayPx: "0.2",
        dayNtlVlm: "0",
        markPx: "0.2",
        midPx: null,
        circulatingSupply: "0",
        coin: "PURR/USDC",
        totalSupply: "0",
        dayBaseVlm: "0",
      },
    ],
  ],
  spotClearinghouseState: (c, r) => {
    const total = fmtScaled(account(c, r.user).spotUsdc, 6);
    return { balances: [{ coin: "USDC", token: 0, total, hold: "0", entryNtl: "0" }] };
  },
  maxBuilderFee: (c, r) => {
    const a = account(c, r.user);
    return a.builderApprovals.get(address(r.builder, "builder")) ?? 0;
  },
  recentTrades: (c, r) => {
    const m = market(c.core, r.coin);
    return m.recent.slice(-RECENT_TRADES).map((t) => ({
      coin: m.coin,
      side: t.takerIsBuy ? "B" : "A",
      px: px(m, t.px),
      sz: fmtScaled(t.sz, m.szDec),
      time: t.time,
      hash: txHash(c.core.seed, t.hashSeq),
      tid: t.tid,
      users: [t.buyer, t.seller],
    }));
  },
  activeAssetData: (c, r) => {
    const a = account(c, r.user);
    const m = market(c.core, r.coin);
    const s = c.core.levSetting(a, m);
    const pos = a.positions.get(m.idx);
    const mark = c.core.markPx(m);
    const free = Math.max(0, c.core.available(a, m.dexIndex));
    // Largest size each side could open at the mark with the free collateral at this leverage.
    const maxLots = mark > 0 ? mulDiv(free, s.lev, mark, "floor") : 0;
    const reducibleLots = (isBuy: boolean) =>
      pos && pos.szi !== 0 && pos.szi > 0 !== isBuy ? Math.abs(pos.szi) : 0;
    const buy = maxLots + reducibleLots(true);
    const sell = maxLots + reducibleLots(false);
    return {
      user: a.addr,
      coin: m.coin,
      leverage: s.cross
        ? { type: "cross", value: s.lev }
        : {
            type: "isolated",
            value: s.lev,
            rawUsd: fmtScaled(pos ? pos.isoMargin - (pos.szi > 0 ? pos.entryNtl : -pos.entryNtl) : 0, 6),
          },
      maxTradeSzs: [fmtScaled(buy, m.szDec), fmtScaled(sell, m.szDec)],
      availableToTrade: [fmtScaled(buy, m.szDec), fmtScaled(sell, m.szDec)],
      markPx: px(m, mark),
    };
  },
  referral: (c, r) => {
    const a = account(c, r.user);
    const vlm = fmtScaled(a.volume, 6);
    const rewards = fmtScaled(a.builderRewards, 6);
    const { referredBy, referrerState, unclaimedRewards } = referralSides(c.core, a);
    // Referral rewards accrue unclaimed: claimRewards is not modelled.
    const unclaimed = fmtScaled(unclaimedRewards, 6);
    return {
      referredBy,
      cumVlm: vlm,
      unclaimedRewards: unclaimed,
      claimedRewards: "0",
      builderRewards: rewards,
      referrerState,
      rewardHistory: [],
      tokenToState: [
        [0, { cumVlm: vlm, unclaimedRewards: unclaimed, claimedRewards: "0", builderRewards: rewards }],
      ],
    };
  },
  extraAgents: (c, r) => {
    const a = account(c, r.user);
    return c.core.agents.list(a.addr, c.now);
  },
  userRole: (c, r) => {
    const user = address(r.user, "user");
    const master = c.core.agents.masterOf(user, c.now);
    if (master) return { role: "agent", data: { user: master } };
    return { role: c.core.accounts.has(user) ? "user" : "missing" };
  },
  userRateLimit: (c, r) => {
    const a = account(c, r.user);
    // Requests sent are counted by the server in front (AddressBudget); the cap follows the volume.
    const volume = a.volume / 1e6;
    return {
      cumVlm: fmtScaled(a.volume, 6),
      nRequestsUsed: 0,
      nRequestsCap: requestCap(volume),
      nRequestsSurplus: 0,
    };
  },
  approvedBuilders: (c, r) => {
    const a = account(c, r.user);
    return [...a.builderApprovals].filter(([, f]) => f > 0).map(([b]) => b);
  },
  ...moreInfoHandlers,
};

/** Every request type /info answers. */
export function infoTypes(): string[] {
  return Object.keys(handlers);
}

export function answerInfo(core: VenueCore, clock: Clockwork, now: number, req: InfoRequest): unknown {
  if (!req || typeof req !== "object" || typeof req.type !== "string")
    throw new VenueError("Missing request type");
  const ctx: Ctx = { core, clock, now, ask: (r) => answerInfo(core, clock, now, r) };
  const h = handlers[req.type];
  // The exchange's own answer to a type it does not serve: the body cannot be read as any request.
  if (!h) throw new VenueError(UNKNOWN_TYPE);
  return h(ctx, req);
}

// ---------------------------------------------------------------- parameters

function dexIndex(core: VenueCore, r: InfoRequest): number {
  const dex = r.dex ?? "";
  if (typeof dex !== "string") throw new VenueError("dex must be a string");
  const i = core.dexes.findIndex((d) => d.name === dex);
  if (i < 0) throw new VenueError(`Unknown dex: ${dex}`);
  return i;
}

function dexMarkets(core: VenueCore, di: number): Market[] {
  return core.markets.filter((m) => m.dexIndex === di);
}

function market(core: VenueCore, coin: unknown): Market {
  const m = typeof coin === "string" ? core.byCoin.get(coin) : undefined;
  if (!m) throw new VenueError(`Unknown coin: ${String(coin)}`);
  core.ensurePast(m);
  return m;
}

function address(v: unknown, name: string): Address {
  if (typeof v !== "string" || !/^0x[0-9a-fA-F]{40}$/.test(v))
    throw new VenueError(`${name} must be a 0x address`);
  return v.toLowerCase() as Address;
}

function account(c: Ctx, user: unknown): Account {
  return userAccount(c, address(user, "user"));
}

function int(v: unknown, name: string): number {
  const n = typeof v === "string" && v.trim() !== "" ? Number(v) : v;
  if (typeof n !== "number" || !Number.isSafeInteger(n)) throw new VenueError(`${name} must be an integer`);
  return n;
}

function optInt(v: unknown): number | undefined {
  return v === undefined || v === null ? undefined : int(v, "time");
}

// ---------------------------------------------------------------- market data

function meta(core: VenueCore, di: number) {
  const markets = dexMarkets(core, di);
  const tableId = (m: Market) => m.spec.marginTableId ?? m.spec.maxLeverage;
  const tables = [...new Set(markets.map(tableId))].sort((a, b) => a - b);
  return {
    universe: markets.map((m) => ({
      name: m.coin,
      szDecimals: m.szDec,
      maxLeverage: m.spec.maxLeverage,
      marginTableId: tableId(m),
      ...(m.spec.onlyIsolated ? { onlyIsolated: true } : {}),
      ...(m.spec.isDelisted ? { isDelisted: true } : {}),
      ...(m.spec.marginMode ? { marginMode: m.spec.marginMode } : {}),
    })),
    marginTables: tables.map((id) => [
      id,
      {
        description: TIERED_MARGIN_TABLES[id]?.description ?? "",
        marginTiers: (TIERED_MARGIN_TABLES[id]?.marginTiers ?? [{ lowerBound: 0, maxLeverage: id }]).map(
          (t) => ({ lowerBound: `${t.lowerBound}.0`, maxLeverage: t.maxLeverage }),
        ),
      },
    ]),
    collateralToken: 0,
  };
}

function px(m: Market, v: number): string {
  return fmtScaled(v, m.pxDec);
}

function mid(core: VenueCore, m: Market): string {
  const bid = m.book.bids.bestPx();
  const ask = m.book.asks.bestPx();
  if (bid === undefined || ask === undefined) return px(m, core.markPx(m));
  return fmtScaled((bid + ask) * 5, m.pxDec + 1);
}

function fracPx(m: Market, v: number | undefined): string | null {
  if (v === undefined) return null;
  const d = new D(v).div(POW10[m.pxDec]!).toSignificantDigits(8);
  return d.toFixed();
}

function assetCtx(core: VenueCore, m: Market, now: number) {
  core.ensurePast(m);
  const hour = Math.floor(now / 3_600_000);
  let ntl = 0;
  let base = 0;
  let prevDayPx: number | undefined;
  let oldest = Number.POSITIVE_INFINITY;
  for (const s of m.hours) {
    if (!s || s.hour <= hour - 24) continue;
    ntl += s.ntl;
    base += s.base;
    if (s.hour < oldest) {
      oldest = s.hour;
      prevDayPx = s.openPx;
    }
  }
  const bid = m.book.bids.bestPx();
  const ask = m.book.asks.bestPx();
  const prem = premiumNow(m);
  return {
    prevDayPx: px(m, prevDayPx ?? m.startPx),
    dayNtlVlm: fmtScaled(ntl, 6),
    markPx: px(m, core.markPx(m)),
    midPx: bid !== undefined && ask !== undefined ? fmtScaled((bid + ask) * 5, m.pxDec + 1) : null,
    funding: estimatedFunding(m),
    openInterest: fmtScaled(m.openInterest + m.backgroundOi, m.szDec),
    premium: prem.premium === null ? null : new D(prem.premium).toDecimalPlaces(8).toFixed(),
    oraclePx: px(m, m.oracle),
    impactPxs:
      prem.impactBid === undefined || prem.impactAsk === undefined
        ? null
        : [fracPx(m, prem.impactBid), fracPx(m, prem.impactAsk)],
    dayBaseVlm: fmtScaled(base, m.szDec),
  };
}

function l2Book(c: Ctx, r: InfoRequest) {
  // The exchange answers `null` for a coin it does not list.
  const m = typeof r.coin === "string" ? c.core.byCoin.get(r.coin) : undefined;
  if (!m) return null;
  const sig = r.nSigFigs === undefined || r.nSigFigs === null ? null : int(r.nSigFigs, "nSigFigs");
  if (sig !== null && (sig < 2 || sig > 5)) throw new VenueError("nSigFigs must be 2–5 or null");
  const side = (isBid: boolean) => {
    const out: { px: string; sz: string; n: number }[] = [];
    if (sig === null) {
      for (const lvl of m.book.side(isBid).walk(MAX_L2_LEVELS)) {
        out.push({ px: px(m, lvl.px), sz: fmtScaled(lvl.total, m.szDec), n: lvl.count });
      }
      return out;
    }
    let cur: { p: number; sz: number; n: number } | undefined;
    const agg: { p: number; sz: number; n: number }[] = [];
    for (const lvl of m.book.side(isBid).walk(5000)) {
      const digits = String(lvl.px).length;
      const bucket = digits > sig ? POW10[digits - sig]! : 1;
      const p = isBid ? Math.floor(lvl.px / bucket) * bucket : Math.ceil(lvl.px / bucket) * bucket;
      if (cur && cur.p === p) {
        cur.sz += lvl.total;
        cur.n += lvl.count;
      } else {
        if (agg.length === MAX_L2_LEVELS) break;
        cur = { p, sz: lvl.total, n: lvl.count };
        agg.push(cur);
      }
    }
    for (const a of agg) out.push({ px: px(m, a.p), sz: fmtScaled(a.sz, m.szDec), n: a.n });
    return out;
  };
  return { coin: m.coin, time: c.now, levels: [side(true), side(false)] };
}

// ---------------------------------------------------------------- accounts

function openOrders(c: Ctx, r: InfoRequest) {
  const a = account(c, r.user);
  const di = dexIndex(c.core, r);
  return [...a.open.values()].filter((o) => o.m.dexIndex === di).sort((x, y) => y.oid - x.oid);
}

function clearinghouseState(c: Ctx, a: Account, di: number) {
  const core = c.core;
  // The dex's own cross account: the main one (which also margins the HIP-3 dexes under dex
  // abstraction), or in standard mode a HIP-3 dex's own balance. Under dex abstraction a HIP-3 dex
  // shows only its isolated positions' margin.
  const own = di === 0 || core.poolIndex(a, di) === di;
  const cross = own ? core.crossSummary(a, di) : { upnl: 0, ntl: 0, signedNtl: 0, marginUsed: 0, maint: 0 };
  const crossValue = own ? core.pool(a, di).cash + cross.upnl : 0;
  let accountValue = crossValue;
  let totalNtl = cross.ntl;
  let signedNtl = cross.signedNtl;
  let marginUsed = cross.marginUsed;
  const assetPositions: unknown[] = [];
  const ordered = [...a.positions].sort((x, y) => x[0] - y[0]);
  for (const [idx, p] of ordered) {
    const m = core.markets[idx]!;
    if (m.dexIndex !== di) continue;
    const mark = core.markPx(m);
    const abs = Math.abs(p.szi);
    const value = abs * mark;
    const upnl = core.positionUpnl(p, mark);
    const signedEntry = p.szi > 0 ? p.entryNtl : -p.entryNtl;
    const used = p.isolated ? p.isoMargin + upnl : mulDiv(value, 1, p.lev, "ceil");
    if (p.isolated) {
      accountValue += p.isoMargin + upnl;
      totalNtl += value;
      signedNtl += p.szi * mark;
      marginUsed += used;
    }
    const k = new D(1).div(2 * m.spec.maxLeverage);
    const den = new D(p.szi).minus(new D(abs).mul(k));
    let liq: Dec;
    if (p.isolated) liq = new D(signedEntry).minus(p.isoMargin).div(den);
    else {
      const mmOthers = cross.maint - mulDiv(value, 1, 2 * m.spec.maxLeverage, "ceil");
      liq = new D(mmOthers).minus(crossValue).plus(new D(p.szi).mul(mark)).div(den);
    }
    const liqPx =
      liq.isFinite() && liq.gt(0) ? liq.div(POW10[m.pxDec]!).toSignificantDigits(8).toFixed() : null;
    assetPositions.push({
      type: "oneWay",
      position: {
        coin: m.coin,
        szi: fmtScaled(p.szi, m.szDec),
        leverage: p.isolated
          ? { type: "isolated", value: p.lev, rawUsd: fmtScaled(p.isoMargin - signedEntry, 6) }
          : { type: "cross", value: p.lev },
        entryPx: new D(p.entryNtl).div(new D(abs).mul(POW10[m.pxDec]!)).toSignificantDigits(8).toFixed(),
        positionValue: fmtScaled(value, 6),
        unrealizedPnl: fmtScaled(upnl, 6),
        returnOnEquity: ratio(upnl * p.lev, p.entryNtl, 8),
        liquidationPx: liqPx,
        marginUsed: fmtScaled(used, 6),
        maxLeverage: m.spec.maxLeverage,
        cumFunding: {
          allTime: fmtScaled(a.fundAllTime.get(idx) ?? 0, 6),
          sinceOpen: fmtScaled(p.fundOpen, 6),
          sinceChange: fmtScaled(p.fundChange, 6),
        },
      },
    });
  }
  const summary = (av: number, ntl: number, sNtl: number, used: number) => ({
    accountValue: fmtScaled(av, 6),
    totalNtlPos: fmtScaled(ntl, 6),
    totalRawUsd: fmtScaled(av - sNtl, 6),
    totalMarginUsed: fmtScaled(used, 6),
  });
  const withdrawable = own ? core.withdrawable(a, di) : 0;
  return {
    marginSummary: summary(accountValue, totalNtl, signedNtl, marginUsed),
    crossMarginSummary: summary(crossValue, cross.ntl, cross.signedNtl, cross.marginUsed),
    crossMaintenanceMarginUsed: fmtScaled(cross.maint, 6),
    withdrawable: fmtScaled(withdrawable, 6),
    assetPositions,
    time: c.now,
  };
}

/** aggregateByTime: fills of one order at the same time merged (size summed, price averaged). */
function aggregate(fills: Record<string, unknown>[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const byKey = new Map<string, { f: Record<string, unknown>; ntl: Dec; sz: Dec; pnl: Dec; fee: Dec }>();
  for (const f of fills) {
    const key = `${f.oid}:${f.time}`;
    const cur = byKey.get(key);
    const sz = new D(f.sz as string);
    if (!cur) {
      const copy = { ...f };
      byKey.set(key, {
        f: copy,
        ntl: sz.mul(f.px as string),
        sz,
        pnl: new D(f.closedPnl as string),
        fee: new D(f.fee as string),
      });
      out.push(copy);
      continue;
    }
    cur.ntl = cur.ntl.plus(sz.mul(f.px as string));
    cur.sz = cur.sz.plus(sz);
    cur.pnl = cur.pnl.plus(f.closedPnl as string);
    cur.fee = cur.fee.plus(f.fee as string);
    cur.f.sz = cur.sz.toFixed();
    cur.f.px = cur.ntl.div(cur.sz).toSignificantDigits(8).toFixed();
    cur.f.closedPnl = cur.pnl.toFixed();
    cur.f.fee = cur.fee.toFixed();
  }
  return out;
}

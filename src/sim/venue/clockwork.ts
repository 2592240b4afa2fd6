/**
 * Time-driven work of the venue: premium sampling every 5 s, hourly funding settlement, liquidation
 * of accounts below maintenance margin, candle roll-over.
 *
 * Funding, as Hyperliquid computes it: an 8-hour rate F = P + clamp(I₈ − P, ±0.0005), with P the
 * hour's average premium and I₈ the 8-hour interest rate (0.01 %, published per hour as 0.0000125),
 * of which each hour pays F / 8 (× the dex's multiplier), capped at ±4 %/h.
 * - main dex: premium = (max(impactBid − oracle, 0) − max(oracle − impactAsk, 0)) / oracle;
 * - HIP-3: premium = ½(impactBid + impactAsk) / oracle − 1.
 * Payment = size × oracle × hourly rate, longs pay a positive rate.
 */
import { D } from "../../core/decimal.ts";
import type { BookSide } from "./book.ts";
import { utcDayNumber, type VenueCore } from "./core.ts";
import { fmtScaled } from "./fixed.ts";
import { liquidateAccounts } from "./liquidation.ts";
import { renderCandle } from "./render.ts";
import type { Market, Order } from "./types.ts";

const HOUR = 3_600_000;
const SAMPLE_MS = 5_000;
const FUNDING_CAP = 0.04;
const CLAMP = 0.0005;
/** A jump longer than this skips the missed funding hours instead of settling each one. */
const MAX_CATCH_UP = 7 * 24 * HOUR;

/** Average fill price (at the price scale, fractional) for `targetNtl` micro-USDC, or undefined if too thin. */
function impactPx(side: BookSide<Order>, targetNtl: number): number | undefined {
  let ntl = 0;
  let sz = 0;
  for (const lvl of side.walk()) {
    const lvlNtl = lvl.px * lvl.total;
    if (ntl + lvlNtl >= targetNtl) {
      sz += (targetNtl - ntl) / lvl.px;
      return targetNtl / sz;
    }
    ntl += lvlNtl;
    sz += lvl.total;
  }
  return undefined;
}

interface PremiumNow {
  premium: number | null;
  impactBid: number | undefined;
  impactAsk: number | undefined;
}

/** Window of the mark price's premium EMA (Hyperliquid: 150 s). */
const MARK_EMA_MS = 150_000;

export function premiumNow(m: Market): PremiumNow {
  const impactBid = impactPx(m.book.bids, m.impactNtl);
  const impactAsk = impactPx(m.book.asks, m.impactNtl);
  const o = m.oracle;
  if (m.dexIndex === 0) {
    if (impactBid === undefined && impactAsk === undefined) return { premium: null, impactBid, impactAsk };
    const up = impactBid === undefined ? 0 : Math.max(impactBid - o, 0);
    const down = impactAsk === undefined ? 0 : Math.max(o - impactAsk, 0);
    return { premium: (up - down) / o, impactBid, impactAsk };
  }
  if (impactBid === undefined || impactAsk === undefined) return { premium: null, impactBid, impactAsk };
  return { premium: (0.5 * (impactBid + impactAsk)) / o - 1, impactBid, impactAsk };
}

/** Hours the funding formula's rate covers; each hour pays this share of it. */
const FUNDING_PERIOD_HOURS = 8;

/** Hourly funding rate for an average premium, as a decimal string (8 dp). */
export function fundingRate(m: Market, avgPremium: number): string {
  const interest = Number(m.dex.fundingInterestRate) * FUNDING_PERIOD_HOURS;
  const mult = Number(m.dex.fundingMultiplier);
  const clamped = Math.min(CLAMP, Math.max(-CLAMP, interest - avgPremium));
  const hourly = (mult * (avgPremium + clamped)) / FUNDING_PERIOD_HOURS;
  return dp8(Math.min(FUNDING_CAP, Math.max(-FUNDING_CAP, hourly)));
}

export function dp8(x: number): string {
  const v = new D(x).toDecimalPlaces(8);
  return v.isZero() ? "0" : v.toFixed();
}

/** The current hour's estimate: the average of the samples so far (or the instantaneous premium). */
export function estimatedFunding(m: Market): string {
  return fundingRate(m, averagePremium(m));
}

function averagePremium(m: Market): number {
  if (m.premiumN > 0) return m.premiumSum / m.premiumN;
  return premiumNow(m).premium ?? 0;
}

export class Clockwork {
  private sampledUntil: number;
  nextFunding: number;
  private last: number;

  constructor(
    private readonly core: VenueCore,
    start: number,
  ) {
    this.sampledUntil = Math.floor(start / SAMPLE_MS) * SAMPLE_MS;
    for (const m of core.markets) m.markEmaAt = start;
    this.nextFunding = Math.floor(start / HOUR) * HOUR + HOUR;
    this.last = start;
  }

  advance(now: number): void {
    if (now < this.last) return;
    this.last = now;
    if (now - this.nextFunding > MAX_CATCH_UP) {
      this.nextFunding = Math.floor(now / HOUR) * HOUR;
      this.sampledUntil = this.nextFunding - HOUR;
    }
    for (;;) {
      const target = Math.min(now, this.nextFunding);
      const k = Math.floor((target - this.sampledUntil) / SAMPLE_MS);
      if (k > 0) {
        this.sampledUntil += k * SAMPLE_MS;
        for (const m of this.core.markets) {
          const p = premiumNow(m).premium ?? 0;
          m.premiumSum += p * k;
          m.premiumN += k;
          m.oracleTwap.add(this.sampledUntil, m.oracle, k);
        }
      }
      if (this.nextFunding > now) break;
      this.settleFunding(this.nextFunding);
      this.nextFunding += HOUR;
    }
    this.smoothPremiums(now);
    this.runScheduledCancels(now);
    this.liquidate(now);
    this.rollCandles(now);
  }

  private settleFunding(t: number): void {
    const core = this.core;
    const hashSeq = ++core.hashSeq;
    for (const m of core.markets) {
      const nSamples = m.premiumN;
      const rateStr = fundingRate(m, averagePremium(m));
      const snap = premiumNow(m).premium;
      m.fundingHistory.push({ time: t, fundingRate: rateStr, premium: dp8(snap ?? 0) });
      m.premiumSum = 0;
      m.premiumN = 0;
      const rate = new D(rateStr);
      if (rate.isZero()) continue;
      for (const a of core.accounts.values()) {
        const p = a.positions.get(m.idx);
        if (!p || p.szi === 0) continue;
        const usdc = -new D(p.szi).mul(m.oracle).mul(rate).toDecimalPlaces(0).toNumber();
        if (p.isolated) p.isoMargin += usdc;
        else core.pool(a, m.dexIndex).cash += usdc;
        p.fundOpen -= usdc;
        p.fundChange -= usdc;
        a.fundAllTime.set(m.idx, (a.fundAllTime.get(m.idx) ?? 0) - usdc);
        a.fundings.push({ time: t, hashSeq, m, usdc, szi: p.szi, fundingRate: rateStr, nSamples });
        if (core.observedUser(a.addr)) {
          const funding = {
            time: t,
            coin: m.coin,
            usdc: fmtScaled(usdc, 6),
            szi: fmtScaled(p.szi, m.szDec),
            fundingRate: rateStr,
            nSamples,
          };
          core.emit({ kind: "funding", user: a.addr, funding });
        }
      }
    }
  }

  /** Liquidation of accounts and isolated positions below maintenance margin (liquidation.ts). */
  liquidate(now: number): void {
    liquidateAccounts(this.core, now);
  }

  /** Advance each market's 150 s EMA of (mid − oracle), the smoothed part of the mark price. */
  private smoothPremiums(now: number): void {
    for (const m of this.core.markets) {
      const dt = now - m.markEmaAt;
      m.markEmaAt = now;
      const bid = m.book.bids.bestPx();
      const ask = m.book.asks.bestPx();
      if (dt <= 0 || bid === undefined || ask === undefined) continue;
      const alpha = 1 - Math.exp(-dt / MARK_EMA_MS);
      m.markEma += alpha * ((bid + ask) / 2 - m.oracle - m.markEma);
    }
  }

  private runScheduledCancels(now: number): void {
    const core = this.core;
    for (const [addr, at] of core.scheduledCancels) {
      if (at > now) continue;
      core.scheduledCancels.delete(addr);
      const day = utcDayNumber(at);
      const fired = core.scheduledCancelsFired.get(addr);
      core.scheduledCancelsFired.set(addr, { day, n: fired?.day === day ? fired.n + 1 : 1 });
      const a = core.account(addr);
      for (const o of [...a.open.values()]) core.finish(o, "scheduledCancel", at);
    }
  }

  private rollCandles(now: number): void {
    const core = this.core;
    for (const m of core.markets) {
      const opened = m.candles.roll(now);
      if (!core.observedCoin(m.coin)) continue;
      for (const { interval, candle } of opened)
        core.emit({ kind: "candle", coin: m.coin, interval, candle: renderCandle(m, interval, candle) });
    }
  }
}

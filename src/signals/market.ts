/** One perp market's context as the signals need it: every amount in USD, funding per hour. */
export interface MarketCtx {
  /** exchange coin name, e.g. "ETH" or "xyz:TSLA" */
  name: string;
  /** 24 h notional volume, USD (`dayNtlVlm`) */
  volume_24h: number;
  /** hourly funding rate (`funding`) */
  funding_rate: number;
  /** open interest in coins (`openInterest`) */
  open_interest: number;
  /** open interest in USD (`openInterest × markPx`) */
  open_interest_usd: number;
  mark_price: number;
  delisted: boolean;
}

interface RawUniverseEntry {
  name: string;
  isDelisted?: boolean;
}
interface RawAssetCtx {
  dayNtlVlm?: string;
  funding?: string;
  openInterest?: string;
  markPx?: string;
}

const n = (s: string | undefined) => {
  const x = Number(s ?? 0);
  return Number.isFinite(x) ? x : 0;
};

/** `metaAndAssetCtxs` → one MarketCtx per universe entry (index-aligned, extra ctxs ignored). */
export function parseMarkets(
  meta: { universe: readonly RawUniverseEntry[] },
  ctxs: readonly RawAssetCtx[],
): MarketCtx[] {
  const out: MarketCtx[] = [];
  const len = Math.min(meta.universe.length, ctxs.length);
  for (let i = 0; i < len; i++) {
    const u = meta.universe[i]!;
    const c = ctxs[i]!;
    const mark = n(c.markPx);
    const oi = n(c.openInterest);
    out.push({
      name: u.name,
      volume_24h: n(c.dayNtlVlm),
      funding_rate: n(c.funding),
      open_interest: oi,
      open_interest_usd: oi * mark,
      mark_price: mark,
      delisted: u.isDelisted === true,
    });
  }
  return out;
}

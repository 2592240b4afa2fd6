/**
 * The venue's account state as plain JSON and back: accounts (cash, abstraction mode and each HIP-3
 * dex's own balance, positions, leverage, open and
 * past orders, fills, funding, ledger, builder approvals, referral code and referrer), agents,
 * scheduled cancels, builder fill rows, the id counters and the markets delisted while the world ran
 * (with their settlement price). Markets are named by coin, so a listing added later does not shift
 * anything. Open orders of the `skipOrdersOf` accounts (the house, which requotes on start) are
 * left out. Market data (books of the house, candles, funding history) is not part of it.
 */
import type { Address } from "../venue.ts";
import type { AgentEntry } from "./agents.ts";
import type { VenueCore } from "./core.ts";
import { freezeAt } from "./delisting.ts";
import { fmtScaled, parseScaled } from "./fixed.ts";
import type {
  Abstraction,
  Account,
  BuilderFillRow,
  Fill,
  FundingPayment,
  LedgerUpdate,
  Order,
  Position,
  ReferredBy,
} from "./types.ts";

type OrderJson = Omit<Order, "user" | "m" | "live"> & { coin: string; live: boolean };
type FillJson = Omit<Fill, "m"> & { coin: string };
type FundingJson = Omit<FundingPayment, "m"> & { coin: string };

interface AccountJson {
  addr: Address;
  cash: number;
  /**
   * Absent in snapshots written before abstraction modes were modelled: every dex then drew on the
   * main balance, so those accounts come back with dex abstraction on.
   */
  abstraction?: Abstraction;
  /** Each HIP-3 dex's own balance (standard mode), by dex name. */
  dexCash?: [string, number][];
  positions: [string, Position][];
  leverage: [string, { lev: number; cross: boolean }][];
  fundAllTime: [string, number][];
  orders: OrderJson[];
  fills: FillJson[];
  fundings: FundingJson[];
  ledger: LedgerUpdate[];
  builderApprovals: [Address, number][];
  volume: number;
  builderRewards: number;
  /** Absent in snapshots written before usdClassTransfer moved balances. */
  spotUsdc?: number;
  /** Absent in snapshots written before referrals were kept. */
  referralCode?: string | null;
  /** Its reward figures are absent in snapshots written before rewards were modelled. */
  referredBy?: (Omit<ReferredBy, "rewardedFees" | "feesToReferrer"> & Partial<ReferredBy>) | null;
}

export interface VenueSnapshot {
  version: 1;
  accounts: AccountJson[];
  agents: [Address, AgentEntry][];
  scheduledCancelsFired: [string, { day: number; n: number }][];
  scheduledCancels: [string, number][];
  builderRows: [string, [string, BuilderFillRow[]][]][];
  nextOid: number;
  nextTid: number;
  hashSeq: number;
  feesCollected: number;
  /** Markets delisted while the world ran, with their settlement price (absent in older snapshots). */
  delisted?: { coin: string; px: string; time: number }[];
}

export function snapshotVenue(core: VenueCore, skipOrdersOf: readonly string[]): VenueSnapshot {
  const skip = new Set(skipOrdersOf.map((a) => a.toLowerCase()));
  const coin = (idx: number) => core.markets[idx]!.coin;
  const accounts: AccountJson[] = [];
  for (const a of core.accounts.values()) {
    const orders = [...a.orders.values()].filter((o) => !(skip.has(a.addr) && o.status === "open"));
    accounts.push({
      addr: a.addr,
      cash: a.cash,
      abstraction: a.abstraction,
      dexCash: [...a.dexPools].map(([di, p]) => [core.dexes[di]!.name, p.cash]),
      positions: [...a.positions].map(([idx, p]) => [coin(idx), { ...p }]),
      leverage: [...a.leverage].map(([idx, s]) => [coin(idx), { ...s }]),
      fundAllTime: [...a.fundAllTime].map(([idx, v]) => [coin(idx), v]),
      orders: orders.map(({ user: _u, m, ...o }) => ({ ...o, coin: m.coin })),
      fills: a.fills.map(({ m, ...f }) => ({ ...f, coin: m.coin })),
      fundings: a.fundings.map(({ m, ...f }) => ({ ...f, coin: m.coin })),
      ledger: a.ledger,
      builderApprovals: [...a.builderApprovals],
      volume: a.volume,
      builderRewards: a.builderRewards,
      spotUsdc: a.spotUsdc,
      referralCode: a.referralCode,
      referredBy: a.referredBy && { ...a.referredBy },
    });
  }
  return {
    version: 1,
    accounts,
    agents: core.agents.entries(),
    scheduledCancelsFired: [...core.scheduledCancelsFired].map(([u, f]) => [u, { ...f }]),
    scheduledCancels: [...core.scheduledCancels],
    builderRows: [...core.builderRows].map(([b, days]) => [b, [...days]]),
    nextOid: core.nextOid,
    nextTid: core.nextTid,
    hashSeq: core.hashSeq,
    feesCollected: core.feesCollected,
    delisted: [...core.delistings].map(([m, d]) => ({
      coin: m.coin,
      px: fmtScaled(d.px, m.pxDec),
      time: d.time,
    })),
  };
}

/** Load a snapshot into a fresh venue (before any account exists); open orders go back on the books. */
export function restoreVenue(core: VenueCore, snap: VenueSnapshot): void {
  const market = (coin: string) => core.byCoin.get(coin);
  for (const s of snap.accounts) {
    const a: Account = core.account(s.addr);
    a.cash = s.cash;
    a.abstraction = s.abstraction ?? "dexAbstraction";
    for (const [name, cash] of s.dexCash ?? []) {
      const di = core.dexes.findIndex((d) => d.name === name);
      if (di > 0) a.dexPools.set(di, { cash, reserved: 0 });
    }
    a.spotUsdc = s.spotUsdc ?? 0;
    a.referralCode = s.referralCode ?? null;
    // Rewards were not kept before they were modelled: such a referral starts from none.
    a.referredBy = s.referredBy ? { rewardedFees: 0, feesToReferrer: 0, ...s.referredBy } : null;
    if (a.referralCode !== null) core.referralCodes.set(a.referralCode.toUpperCase(), a.addr);
    for (const [c, p] of s.positions) {
      const m = market(c);
      if (m) a.positions.set(m.idx, p);
    }
    for (const [c, l] of s.leverage) {
      const m = market(c);
      if (m) a.leverage.set(m.idx, l);
    }
    for (const [c, v] of s.fundAllTime) {
      const m = market(c);
      if (m) a.fundAllTime.set(m.idx, v);
    }
    for (const { coin, ...o } of s.orders) {
      const m = market(coin);
      if (!m) continue;
      // Snapshots written before TP/SL groupings carry neither field.
      const saved: Partial<Pick<Order, "tpsl" | "childOids">> = o;
      const order: Order = {
        ...o,
        tpsl: saved.tpsl ?? null,
        childOids: saved.childOids ?? [],
        user: a,
        m,
        live: false,
      };
      a.orders.set(order.oid, order);
      if (order.cloid) a.cloids.set(order.cloid, order);
      if (order.status !== "open") continue;
      // A normalTpsl child still waiting for its parent is neither on the book nor a live trigger.
      if (order.tpsl?.waiting) continue;
      a.open.set(order.oid, order);
      core.pool(a, m.dexIndex).reserved += order.reserved;
      if (order.tpsl?.grouping === "positionTpsl") a.positionTpsl++;
      if (order.trigger && o.live === false) {
        m.triggers.push(order);
        core.triggerCount++;
      } else {
        order.live = true;
        m.book.side(order.isBuy).add(order);
      }
    }
    for (const { coin, ...f } of s.fills) {
      const m = market(coin);
      if (m) a.fills.push({ ...f, m });
    }
    for (const { coin, ...f } of s.fundings) {
      const m = market(coin);
      if (m) a.fundings.push({ ...f, m });
    }
    a.ledger.push(...s.ledger);
    for (const [b, v] of s.builderApprovals) a.builderApprovals.set(b, v);
    a.volume = s.volume;
    a.builderRewards = s.builderRewards;
  }
  // Open interest is the sum of long positions.
  for (const a of core.accounts.values())
    for (const [idx, p] of a.positions) if (p.szi > 0) core.markets[idx]!.openInterest += p.szi;
  core.agents.restore(snap.agents);
  for (const [k, v] of snap.scheduledCancelsFired) core.scheduledCancelsFired.set(k, { ...v });
  for (const [k, v] of snap.scheduledCancels) core.scheduledCancels.set(k, v);
  for (const [b, days] of snap.builderRows) core.builderRows.set(b, new Map(days));
  core.nextOid = snap.nextOid;
  core.nextTid = Math.max(core.nextTid, snap.nextTid);
  core.hashSeq = Math.max(core.hashSeq, snap.hashSeq);
  core.feesCollected = snap.feesCollected;
  for (const d of snap.delisted ?? []) {
    const m = market(d.coin);
    const px = m ? parseScaled(d.px, m.pxDec) : null;
    if (!m || !px) continue;
    m.spec = { ...m.spec, isDelisted: true };
    core.delistings.set(m, { px: px.scaled, time: d.time });
    freezeAt(m, px.scaled);
  }
}

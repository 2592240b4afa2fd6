/**
 * Liquidation as Hyperliquid documents it (docs: Trading → Liquidations), checked on the mark price:
 * - a cross account whose equity falls below the maintenance margin of its cross positions, or an
 *   isolated position whose margin plus uPnL falls below its own, is liquidated with reduce-only
 *   market orders into the book (here at most 2 % through the mark, and never better than the mark:
 *   see `VenueCore.markBound`);
 * - a position worth more than $100k sends only 20 % of its size; after a partial liquidation the
 *   user has a 30 s cooldown during which liquidation orders are for the entire position;
 * - when equity is still below 2/3 of the maintenance margin, the backstop liquidator takes over what
 *   is left at the mark price (and absorbs a loss beyond the margin).
 * Maintenance margin follows the market's margin tiers (margin.ts). The rules themselves are in
 * liquidation-rules.ts, which the --dry-run paper book applies too.
 */
import { LIQUIDATOR, type VenueCore } from "./core.ts";
import { fmtScaled } from "./fixed.ts";
import {
  belowMaintenance,
  belowBackstop as equityBelowBackstop,
  liquidationLimit,
  liquidationOrderSize,
  PARTIAL_LIQUIDATION_COOLDOWN_MS,
} from "./liquidation-rules.ts";
import { maintenanceMargin } from "./margin.ts";
import type { Account, Market, Position } from "./types.ts";

/** Check every account and liquidate what is below maintenance. */
export function liquidateAccounts(core: VenueCore, now: number): void {
  for (const a of core.accounts.values()) {
    if (a.positions.size === 0 || a.addr === LIQUIDATOR) continue;
    // This runs for every account several times a second: no copies unless something is liquidated.
    let isolated = 0;
    let cross = 0;
    for (const p of a.positions.values()) {
      if (p.isolated) isolated++;
      else cross++;
    }
    if (isolated > 0) {
      for (const [idx, p] of [...a.positions]) {
        if (!p.isolated) continue;
        const m = core.markets[idx]!;
        if (isolatedBelow(core, m, p, belowMaintenance)) liquidate(core, a, [[m, p]], "Isolated", now);
      }
    }
    if (cross === 0) continue;
    // Each clearinghouse's cross account on its own: the main one (with every HIP-3 dex under dex
    // abstraction), and in standard mode each HIP-3 dex with its own balance (a position there made
    // its pool).
    liquidateCrossBelow(core, a, 0, now);
    for (const k of a.dexPools.keys()) if (core.poolIndex(a, k) === k) liquidateCrossBelow(core, a, k, now);
  }
}

/** The cross positions margined with pool `k` (see `VenueCore.poolIndex`), if its equity is below maintenance. */
function liquidateCrossBelow(core: VenueCore, a: Account, k: number, now: number): void {
  const s = core.crossSummary(a, k);
  if (s.ntl === 0 || !belowMaintenance(core.pool(a, k).cash + s.upnl, s.maint)) return;
  const positions: [Market, Position][] = [];
  for (const [idx, p] of a.positions) {
    const m = core.markets[idx]!;
    if (!p.isolated && core.poolIndex(a, m.dexIndex) === k) positions.push([m, p]);
  }
  if (positions.length > 0) liquidate(core, a, positions, "Cross", now);
}

/** An isolated position's equity (margin + uPnL) against its maintenance margin, by `rule`. */
function isolatedBelow(
  core: VenueCore,
  m: Market,
  p: Position,
  rule: (equity: number, maint: number) => boolean,
): boolean {
  const mark = core.markPx(m);
  const maint = maintenanceMargin(m.spec, Math.abs(p.szi) * mark);
  return rule(p.isoMargin + core.positionUpnl(p, mark), maint);
}

function liquidate(
  core: VenueCore,
  a: Account,
  positions: [Market, Position][],
  kind: "Cross" | "Isolated",
  now: number,
): void {
  const di = positions[0]![0].dexIndex;
  const pool = core.pool(a, di);
  const cashBefore = pool.cash;
  const sizesBefore = positions.map(([, p]) => p.szi);
  const accountValue =
    kind === "Cross"
      ? pool.cash + core.crossSummary(a, di).upnl
      : positions[0]![1].isoMargin + core.positionUpnl(positions[0]![1], core.markPx(positions[0]![0]));
  for (const o of [...a.open.values()])
    if (
      kind === "Cross" ? core.poolIndex(a, o.m.dexIndex) === core.poolIndex(a, di) : o.m === positions[0]![0]
    )
      core.finish(o, "liquidatedCanceled", now);
  const cooling = (core.liquidationCooldown.get(a.addr) ?? 0) > now;
  let partial = false;
  let ntl = 0;
  const listed: { coin: string; szi: string }[] = [];
  for (const [m, p] of positions) {
    const mark = core.markPx(m);
    const abs = Math.abs(p.szi);
    const value = abs * mark;
    ntl += value;
    listed.push({ coin: m.coin, szi: fmtScaled(p.szi, m.szDec) });
    const order = liquidationOrderSize(abs, value, cooling);
    if (order.partial) partial = true;
    const isBuy = p.szi < 0;
    core.liquidateIntoBook(a, m, isBuy, liquidationLimit(isBuy, mark), order.sz, mark, now);
  }
  if (partial) core.liquidationCooldown.set(a.addr, now + PARTIAL_LIQUIDATION_COOLDOWN_MS);
  if (belowBackstop(core, a, positions, kind)) backstop(core, a, positions, now);
  // Nothing traded (an empty book) and no backstop yet: the next check tries again, quietly.
  if (positions.every(([m], i) => a.positions.get(m.idx)?.szi === sizesBefore[i])) return;
  if (kind === "Isolated" && pool.cash < cashBefore && !a.positions.has(positions[0]![0].idx)) {
    // An isolated loss is capped at its margin: the backstop absorbs the rest.
    const liq = core.pool(core.account(LIQUIDATOR), di);
    liq.cash -= cashBefore - pool.cash;
    pool.cash = cashBefore;
  }
  if (kind === "Cross" && pool.cash < 0 && !positions.some(([m]) => a.positions.has(m.idx))) {
    const liq = core.pool(core.account(LIQUIDATOR), di);
    liq.cash += pool.cash;
    pool.cash = 0;
  }
  core.ledger(a, now, {
    type: "liquidation",
    liquidatedNtlPos: fmtScaled(ntl, 6),
    accountValue: fmtScaled(accountValue, 6),
    leverageType: kind,
    liquidatedPositions: listed,
  });
}

/** Equity below 2/3 of maintenance after the market orders. */
function belowBackstop(
  core: VenueCore,
  a: Account,
  positions: [Market, Position][],
  kind: "Cross" | "Isolated",
): boolean {
  if (kind === "Isolated") {
    const [m] = positions[0]!;
    const p = a.positions.get(m.idx);
    return p !== undefined && isolatedBelow(core, m, p, equityBelowBackstop);
  }
  if (!positions.some(([m]) => a.positions.get(m.idx)?.isolated === false)) return false;
  const di = positions[0]![0].dexIndex;
  const s = core.crossSummary(a, di);
  return equityBelowBackstop(core.pool(a, di).cash + s.upnl, s.maint);
}

/** The backstop liquidator takes over what is left of the positions at the mark price. */
function backstop(core: VenueCore, a: Account, positions: [Market, Position][], now: number): void {
  const liq = core.account(LIQUIDATOR);
  for (const [m] of positions) {
    const p = a.positions.get(m.idx);
    if (!p) continue;
    const mark = core.markPx(m);
    const rest = Math.abs(p.szi);
    const isBuy = p.szi < 0;
    const hashSeq = ++core.hashSeq;
    const tid = core.nextTid++;
    core.liquidating = { liquidatedUser: a.addr, markPx: mark, method: "backstop" };
    try {
      core.settle(a, m, isBuy, mark, rest, 0, null, now, true, core.nextOid++, null, tid, hashSeq);
      core.settle(liq, m, !isBuy, mark, rest, 0, null, now, false, core.nextOid++, null, tid, hashSeq);
    } finally {
      core.liquidating = null;
    }
  }
}

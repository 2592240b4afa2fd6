/**
 * `updateLeverage` ({asset, isCross, leverage}): the account's leverage and margin mode on one
 * market (Hyperliquid docs, *Exchange endpoint → Update leverage*). With a position open the exchange
 * moves no USDC: the position keeps the margin it holds, and its leverage changes only where that
 * margin allows (measured on the exchange: an isolated position's `marginUsed` stayed put through
 * 5× → 10× → 3×, and 3× → 1× was refused). Here, with a position open:
 * - the margin mode never switches (the exchange's text);
 * - a decrease is accepted only while the margin in place holds the transfer margin requirement at
 *   the new leverage: the isolated position's margin + uPnL, or the cross account's balance + uPnL
 *   less resting orders' margin (the exchange's texts; the requirement is the sim's strict reading);
 * - an increase is refused for a position its margin table does not allow at the new leverage (the
 *   sim's strict reading and text: not on record).
 * docs/exchange-rules.md, *Leverage*, lists each rule and its source.
 */
import type { ExchangeResponse } from "../venue.ts";
import type { VenueCore } from "./core.ts";
import { mulDiv } from "./fixed.ts";
import { beyondMarginTier, holdsTransferMargin } from "./order-rules.ts";
import type { Account, Market, Position } from "./types.ts";

const err = (message: string): ExchangeResponse => ({ status: "err", response: message });

const ISOLATED_DECREASE_SHORT =
  "Isolated position does not have sufficient margin available to decrease leverage. To decrease leverage, add margin to the position.";
const CROSS_DECREASE_SHORT = "Cross position does not have sufficient margin available to decrease leverage.";

export function updateLeverage(core: VenueCore, a: Account, act: Record<string, unknown>): ExchangeResponse {
  const m = typeof act.asset === "number" ? core.byAsset.get(act.asset) : undefined;
  if (!m) return err(`Unknown asset ${String(act.asset)}.`);
  const lev = act.leverage;
  if (typeof lev !== "number" || !Number.isSafeInteger(lev) || lev < 1 || lev > m.spec.maxLeverage) {
    return err(`Invalid leverage value. Max leverage for ${m.coin} is ${m.spec.maxLeverage}x.`);
  }
  const cross = act.isCross === true;
  if (cross && m.spec.onlyIsolated) return err("Cross margin is not allowed for this asset.");
  const setting = core.levSetting(a, m);
  const pos = a.positions.get(m.idx);
  if (pos && pos.szi !== 0) {
    if (pos.isolated === cross) return err("Cannot switch leverage type with open position.");
    const refusal = positionRefusal(core, a, m, pos, lev);
    if (refusal) return err(refusal);
    pos.lev = lev;
  }
  setting.lev = lev;
  setting.cross = cross;
  return { status: "ok", response: { type: "default" } };
}

/** Why the open position `pos` may not take leverage `lev` (its margin untouched), or null. */
function positionRefusal(core: VenueCore, a: Account, m: Market, pos: Position, lev: number): string | null {
  const mark = core.markPx(m);
  if (lev > pos.lev) {
    return beyondMarginTier(m, core.limitsOf(m), Math.abs(pos.szi), lev, mark)
      ? `Position exceeds margin tier limit at new leverage. asset=${m.asset}`
      : null;
  }
  if (lev === pos.lev) return null;
  if (pos.isolated) {
    const value = Math.abs(pos.szi) * mark;
    const equity = pos.isoMargin + core.positionUpnl(pos, mark);
    return holdsTransferMargin(equity, mulDiv(value, 1, lev, "ceil"), value) ? null : ISOLATED_DECREASE_SHORT;
  }
  const prev = pos.lev;
  pos.lev = lev;
  const s = core.crossSummary(a, m.dexIndex);
  pos.lev = prev;
  const pool = core.pool(a, m.dexIndex);
  return holdsTransferMargin(pool.cash + s.upnl - pool.reserved, s.marginUsed, s.ntl)
    ? null
    : CROSS_DECREASE_SHORT;
}

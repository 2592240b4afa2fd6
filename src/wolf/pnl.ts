import { D, type Dec, dec, num } from "../core/decimal.ts";
import type { WolfState } from "./state.ts";

/**
 * The PnL figures the dashboard shows, and how they add up to what the leaderboard ranks (account
 * value now − value at registration): realised (closed slots, net of all their fees) + unrealised
 * (open slots at the last price) − fees already paid on open slots. Funding payments are in the
 * account value only. Pure.
 */
export interface WolfPnl {
  realized_pnl: number;
  unrealized_pnl: number;
  open_fees: number;
  account_pnl: number;
}

export function wolfPnl(state: WolfState): WolfPnl {
  let unrealized: Dec = new D(0);
  let openFees: Dec = new D(0);
  for (const s of state.slots) {
    if (s.status === "empty") continue;
    const size = dec(s.entry_size).minus(s.exit?.filled_size ?? 0);
    const move = dec(s.current_price).minus(s.entry_price);
    unrealized = unrealized.plus((s.side === "short" ? move.negated() : move).times(size));
    openFees = openFees.plus(s.entry_fee).plus(s.exit?.fees ?? 0);
  }
  const realized = dec(state.total_pnl);
  return {
    realized_pnl: num(realized, 2),
    unrealized_pnl: num(unrealized, 2),
    open_fees: num(openFees, 2),
    account_pnl: num(realized.plus(unrealized).minus(openFees), 2),
  };
}

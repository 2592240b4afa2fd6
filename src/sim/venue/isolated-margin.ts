/**
 * `updateIsolatedMargin` ({asset, isBuy, ntli}): USDC moved between the free balance and one isolated
 * position (Hyperliquid docs, *Exchange endpoint → Update isolated margin*). `ntli` is signed
 * micro-USDC: positive adds, negative removes. The position's side is the position's own: the
 * exchange does not read `isBuy` for it (Hyperliquid's Python SDK always sends `true`). Adding moves
 * USDC out of the cross account of the position's clearinghouse (the main one, or a HIP-3 dex's own in
 * standard mode), so it is held, like every transfer out, to what may leave it
 * (`withdrawable`: the transfer margin requirement stays); removing is limited by
 * `removableIsolatedMargin` (order-rules.ts); a
 * strict-isolated market (`onlyIsolated` without `marginMode: "noCross"`) lets margin in, never out
 * (docs, *Trading → Margining*: "margin cannot be removed"). The refusal texts are the sim's, the
 * exchange's not being on record, except on a cross position (its answer, observed on testnet).
 */
import type { ExchangeResponse } from "../venue.ts";
import type { VenueCore } from "./core.ts";
import { removableIsolatedMargin } from "./order-rules.ts";
import type { Account, Market } from "./types.ts";

const err = (message: string): ExchangeResponse => ({ status: "err", response: message });

/** Margin cannot leave a position on this market. */
function isStrictIsolated(m: Market): boolean {
  return m.spec.onlyIsolated === true && m.spec.marginMode !== "noCross";
}

export function updateIsolatedMargin(
  core: VenueCore,
  a: Account,
  act: Record<string, unknown>,
): ExchangeResponse {
  const ntli = act.ntli;
  if (typeof act.isBuy !== "boolean" || typeof ntli !== "number" || !Number.isSafeInteger(ntli) || ntli === 0)
    return err("Invalid updateIsolatedMargin action.");
  const m = typeof act.asset === "number" ? core.byAsset.get(act.asset) : undefined;
  if (!m) return err(`Unknown asset ${String(act.asset)}.`);
  const pos = a.positions.get(m.idx);
  if (!pos || pos.szi === 0) return err(`No isolated position to update margin for. asset=${m.asset}`);
  if (!pos.isolated) return err("Position does not use isolated margin.");
  if (ntli > 0) {
    if (ntli > core.withdrawable(a, m.dexIndex))
      return err(`Insufficient margin to add to isolated position. asset=${m.asset}`);
  } else {
    if (isStrictIsolated(m))
      return err(`Cannot remove margin from a strict isolated position. asset=${m.asset}`);
    const mark = core.markPx(m);
    const removable = removableIsolatedMargin(
      pos.isoMargin,
      core.positionUpnl(pos, mark),
      Math.abs(pos.szi) * mark,
      pos.lev,
    );
    if (-ntli > removable)
      return err(`Insufficient margin to remove from isolated position. asset=${m.asset}`);
  }
  pos.isoMargin += ntli;
  core.pool(a, m.dexIndex).cash -= ntli;
  return { status: "ok", response: { type: "default" } };
}

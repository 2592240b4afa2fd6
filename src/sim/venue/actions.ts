/** POST /exchange: one authenticated action applied to the venue, answered in the exchange's shapes. */
import type { Address, ExchangeAction, ExchangeResponse, WireOrder } from "../venue.ts";
import {
  agentEnableDexAbstraction,
  agentSetAbstraction,
  userDexAbstraction,
  userSetAbstraction,
} from "./abstraction.ts";
import { MAX_PERP_BUILDER_FEE, type OrderResult, utcDayNumber, VenueCore } from "./core.ts";
import { fmtScaled, parseScaled, tradedUsd } from "./fixed.ts";
import { updateIsolatedMargin } from "./isolated-margin.ts";
import { registerReferrer, setReferrer } from "./referrals.ts";
import type { Account, Order } from "./types.ts";
import { unmodelledRefusal } from "./unmodelled-actions.ts";
import { updateLeverage } from "./update-leverage.ts";

/** Approvals above 1% (spot's ceiling) are refused; perps further cap the charged fee at 0.1%. */
const MAX_APPROVAL = 1000;
/** The dead man's switch: at least 5 s ahead, and it may fire at most 10 times per UTC day. */
const SCHEDULE_CANCEL_MIN_DELAY_MS = 5_000;
const SCHEDULE_CANCEL_DAILY_LIMIT = 10;
/** The exchange arms (or disarms) the switch only for accounts that have traded $1,000,000. */
const SCHEDULE_CANCEL_MIN_VOLUME_USD = 1_000_000;

/** Hyperliquid charges 1 USDC per withdrawal. */
const WITHDRAW_FEE = 1_000_000;
/** reserveRequestWeight: 0.0005 USDC (500 micro) per request, from the perp balance. */
const RESERVED_REQUEST_FEE = 500;

const ok = (type: string, data?: unknown): ExchangeResponse =>
  data === undefined ? { status: "ok", response: { type } } : { status: "ok", response: { type, data } };
const err = (message: string): ExchangeResponse => ({ status: "err", response: message });

function isAddress(v: unknown): v is Address {
  return typeof v === "string" && /^0x[0-9a-fA-F]{40}$/.test(v);
}

export function applyAction(
  core: VenueCore,
  action: ExchangeAction,
  user: Address,
  nonce: number,
  now: number,
): ExchangeResponse {
  if (!action || typeof action !== "object" || typeof action.type !== "string") return err("Invalid action.");
  const a = core.userAccount(user, now);
  const act = action as Record<string, unknown>;
  switch (action.type) {
    case "order":
      return order(core, a, act, now);
    case "cancel":
      return cancel(core, a, act.cancels, now, (c) => [c.a, c.o]);
    case "cancelByCloid":
      return cancel(core, a, act.cancels, now, (c) => [c.asset, c.cloid]);
    case "updateLeverage":
      return updateLeverage(core, a, act);
    case "updateIsolatedMargin":
      return updateIsolatedMargin(core, a, act);
    case "approveBuilderFee": {
      const rate = typeof act.maxFeeRate === "string" ? VenueCore.feeRateToTenthsBp(act.maxFeeRate) : null;
      if (rate === null) return err("Invalid max fee rate.");
      if (rate > MAX_APPROVAL) return err("Max fee rate is too high.");
      if (!isAddress(act.builder)) return err("Invalid builder address.");
      a.builderApprovals.set(act.builder.toLowerCase() as Address, rate);
      return ok("default");
    }
    case "approveAgent": {
      if (!isAddress(act.agentAddress)) return err("Invalid agent address.");
      const refusal = core.agents.approve(
        a.addr,
        act.agentAddress.toLowerCase() as Address,
        act.agentName,
        now,
      );
      return refusal ? err(refusal) : ok("default");
    }
    case "usdSend": {
      if (!isAddress(act.destination)) return err("Invalid destination address.");
      const amt = parseScaled(act.amount, 6);
      if (!amt || amt.scaled === 0) return err("Invalid amount.");
      if (amt.scaled > core.withdrawable(a)) return err("Insufficient balance for transfer.");
      const dest = core.userAccount(act.destination, now);
      const delta = { type: "internalTransfer", user: a.addr, destination: dest.addr, fee: "0" };
      a.cash -= amt.scaled;
      core.ledger(a, now, { ...delta, usdc: fmtScaled(amt.scaled, 6) });
      core.credit(dest, amt.scaled, now, delta);
      return ok("default");
    }
    case "withdraw3": {
      if (!isAddress(act.destination)) return err("Invalid destination address.");
      const amt = parseScaled(act.amount, 6);
      if (!amt || amt.scaled <= WITHDRAW_FEE) return err("Withdrawal amount must exceed the 1 USDC fee.");
      if (amt.scaled > core.withdrawable(a)) return err("Insufficient balance for withdrawal.");
      a.cash -= amt.scaled;
      core.ledger(a, now, {
        type: "withdraw",
        usdc: fmtScaled(amt.scaled, 6),
        nonce,
        fee: fmtScaled(WITHDRAW_FEE, 6),
      });
      return ok("default");
    }
    case "modify":
      return modify(core, a, [act], now, "default");
    case "batchModify":
      return Array.isArray(act.modifies)
        ? modify(core, a, act.modifies, now, "order")
        : err("Invalid batchModify action.");
    case "scheduleCancel": {
      if (!core.scheduleCancelAnyVolume && a.volume < SCHEDULE_CANCEL_MIN_VOLUME_USD * 1_000_000)
        return err(
          `Cannot set scheduled cancel time until enough volume traded. Required: $${SCHEDULE_CANCEL_MIN_VOLUME_USD}. Traded: $${tradedUsd(a.volume)}.`,
        );
      if (act.time === undefined || act.time === null) {
        core.scheduledCancels.delete(a.addr);
        return ok("default");
      }
      if (typeof act.time !== "number" || act.time < now + SCHEDULE_CANCEL_MIN_DELAY_MS)
        return err("Scheduled cancel time too early, must be at least 5 seconds from now.");
      const fired = core.scheduledCancelsFired.get(a.addr);
      if (fired && fired.day === utcDayNumber(now) && fired.n >= SCHEDULE_CANCEL_DAILY_LIMIT)
        return err(
          `Too many scheduled cancels triggered for the day. Limit is ${SCHEDULE_CANCEL_DAILY_LIMIT}.`,
        );
      core.scheduledCancels.set(a.addr, act.time);
      return ok("default");
    }
    case "usdClassTransfer":
      return usdClassTransfer(core, a, act, now);
    case "reserveRequestWeight": {
      // The requests bought are counted by the server in front (AddressBudget), once this succeeds.
      const w = act.weight;
      if (typeof w !== "number" || !Number.isSafeInteger(w) || w < 0)
        return err("Invalid reserveRequestWeight action.");
      if (w > Math.floor(core.withdrawable(a) / RESERVED_REQUEST_FEE))
        return err("Insufficient balance to reserve request weight.");
      a.cash -= w * RESERVED_REQUEST_FEE;
      return ok("default");
    }
    case "registerReferrer":
      return registerReferrer(core, a, act.code);
    case "setReferrer":
      return setReferrer(core, a, act.code, now);
    case "noop":
      return ok("default");
    case "sendAsset":
      return sendAsset(core, a, act, nonce, now);
    case "userDexAbstraction":
      return userDexAbstraction(core, a, act);
    case "agentEnableDexAbstraction":
      return agentEnableDexAbstraction(core, a);
    case "userSetAbstraction":
      return userSetAbstraction(core, a, act);
    case "agentSetAbstraction":
      return agentSetAbstraction(core, a, act);
    default:
      return err(unmodelledRefusal(action.type) ?? `Unsupported action type: ${action.type}`);
  }
}

/** USDC between the perp and the spot account: the source must hold it (perp: free of margin). */
function usdClassTransfer(
  core: VenueCore,
  a: Account,
  act: Record<string, unknown>,
  now: number,
): ExchangeResponse {
  // The exchange's amount may carry a " subaccount:0x…" suffix; the sim has no subaccounts.
  const raw = typeof act.amount === "string" ? act.amount.split(" ")[0] : act.amount;
  const amt = parseScaled(raw, 6);
  if (!amt || amt.scaled === 0) return err("Invalid amount.");
  if (typeof act.toPerp !== "boolean") return err("Invalid usdClassTransfer action.");
  const available = act.toPerp ? a.spotUsdc : core.withdrawable(a);
  if (amt.scaled > available) return err("Insufficient balance for transfer.");
  a.cash += act.toPerp ? amt.scaled : -amt.scaled;
  a.spotUsdc += act.toPerp ? -amt.scaled : amt.scaled;
  core.ledger(a, now, { type: "accountClassTransfer", usdc: fmtScaled(amt.scaled, 6), toPerp: act.toPerp });
  return ok("default");
}

/**
 * sendAsset {destination, sourceDex, destinationDex, token, amount}: USDC between the account's own
 * perp dexes ("" the main one, or a HIP-3 dex's name) and spot. The source must hold it free of
 * margin (its `withdrawable`). Two ends the same clearinghouse margins (a HIP-3 dex under dex
 * abstraction and the main dex) move nothing. Recorded as the exchange's `send` ledger update.
 */
function sendAsset(
  core: VenueCore,
  a: Account,
  act: Record<string, unknown>,
  nonce: number,
  now: number,
): ExchangeResponse {
  if (typeof act.destination !== "string" || act.destination.toLowerCase() !== a.addr)
    return err("sendAsset to another address is not supported by the simulator; use usdSend.");
  if (typeof act.token !== "string" || act.token.split(":")[0] !== "USDC")
    return err("sendAsset of a token other than USDC is not modelled by the sim world.");
  const amt = parseScaled(act.amount, 6);
  if (!amt || amt.scaled === 0) return err("Invalid amount.");
  const source = sendEnd(core, a, act.sourceDex);
  const dest = sendEnd(core, a, act.destinationDex);
  if (source === undefined || dest === undefined) return err("Invalid dex.");
  const free = source === "spot" ? a.spotUsdc : core.withdrawable(a, source);
  if (amt.scaled > free) return err("Insufficient balance for transfer.");
  const pool = (end: number) => core.pool(a, end);
  if (source === "spot") a.spotUsdc -= amt.scaled;
  else pool(source).cash -= amt.scaled;
  if (dest === "spot") a.spotUsdc += amt.scaled;
  else pool(dest).cash += amt.scaled;
  const usdc = fmtScaled(amt.scaled, 6);
  core.ledger(a, now, {
    type: "send",
    user: a.addr,
    destination: a.addr,
    sourceDex: act.sourceDex,
    destinationDex: act.destinationDex,
    token: "USDC",
    amount: usdc,
    usdcValue: usdc,
    fee: "0",
    nativeTokenFee: "0",
    nonce,
    feeToken: "USDC",
  });
  return ok("default");
}

/** A sendAsset end: "spot", or the index of a perp dex ("" the main one); undefined if unknown. */
function sendEnd(core: VenueCore, a: Account, dex: unknown): "spot" | number | undefined {
  if (dex === "spot") return "spot";
  if (typeof dex !== "string") return undefined;
  const di = core.dexes.findIndex((d) => d.name === dex);
  return di < 0 ? undefined : core.poolIndex(a, di);
}

function order(core: VenueCore, a: Account, act: Record<string, unknown>, now: number): ExchangeResponse {
  if (!Array.isArray(act.orders)) return err("Invalid order action.");
  let builder: { b: Address; f: number } | null = null;
  if (act.builder !== undefined && act.builder !== null) {
    const b = act.builder as { b?: unknown; f?: unknown };
    if (!isAddress(b.b) || typeof b.f !== "number" || !Number.isSafeInteger(b.f) || b.f < 0)
      return err("Invalid builder.");
    if (b.f > MAX_PERP_BUILDER_FEE) return err("Builder fee exceeds the maximum of 0.1% for perps.");
    const addr = b.b.toLowerCase() as Address;
    if (b.f > (a.builderApprovals.get(addr) ?? 0)) return err("Builder fee has not been approved.");
    builder = { b: addr, f: b.f };
  }
  const grouping = act.grouping ?? "na";
  if (grouping !== "na" && grouping !== "normalTpsl" && grouping !== "positionTpsl")
    return err("Invalid grouping.");
  const hashSeq = ++core.hashSeq;
  const statuses: OrderResult[] = [];
  const group: Order[] = [];
  let parent: Order | null = null;
  let parentError: string | null = null;
  for (const [i, w] of (act.orders as WireOrder[]).entries()) {
    if (!w || typeof w !== "object" || typeof w.a !== "number" || !w.t || typeof w.t !== "object") {
      statuses.push({ error: "Invalid order." });
      continue;
    }
    const isTrigger = "trigger" in w.t;
    if (grouping === "na" || (grouping === "normalTpsl" && i === 0 && !isTrigger)) {
      core.lastPlaced = null;
      const r = core.placeOrder(a, w, builder, now, hashSeq);
      statuses.push(r);
      if (grouping === "normalTpsl") {
        parent = core.lastPlaced;
        parentError = typeof r === "object" && "error" in r ? r.error : null;
      }
      continue;
    }
    // TP/SL of a group: trigger orders only; normalTpsl children need an accepted parent.
    if (!isTrigger) {
      statuses.push({ error: "Invalid TP/SL grouping: only trigger orders may follow." });
      continue;
    }
    if (grouping === "normalTpsl" && !parent) {
      statuses.push({ error: parentError ?? "Invalid TP/SL grouping: the first order must be the entry." });
      continue;
    }
    core.lastPlaced = null;
    statuses.push(core.placeOrder(a, w, builder, now, hashSeq, { grouping, parent }));
    const placed = core.lastPlaced as Order | null;
    if (placed?.tpsl) group.push(placed);
  }
  if (group.length > 1) core.linkSiblings(group);
  return ok("order", { statuses });
}

/** modify / batchModify: cancel the open order (by oid or cloid) and place its replacement. */
function modify(
  core: VenueCore,
  a: Account,
  modifies: unknown[],
  now: number,
  responseType: "default" | "order",
): ExchangeResponse {
  const hashSeq = ++core.hashSeq;
  const statuses: OrderResult[] = [];
  for (const raw of modifies) {
    const mod = (raw ?? {}) as { oid?: unknown; order?: WireOrder };
    const o =
      typeof mod.oid === "number"
        ? a.orders.get(mod.oid)
        : typeof mod.oid === "string"
          ? a.cloids.get(mod.oid.toLowerCase())
          : undefined;
    if (o?.status !== "open" || !mod.order || typeof mod.order !== "object") {
      statuses.push({ error: "Cannot modify canceled or filled order" });
      continue;
    }
    core.cancel(a, o, now);
    // A TP/SL keeps its grouping, its siblings and (still waiting) its parent across a modify.
    const parent = o.tpsl?.waiting && o.tpsl.parentOid !== null ? a.orders.get(o.tpsl.parentOid) : undefined;
    const grouping = o.tpsl ? { grouping: o.tpsl.grouping, parent: parent ?? null } : null;
    core.lastPlaced = null;
    const r = core.placeOrder(a, mod.order, o.builder, now, hashSeq, grouping);
    const placed = core.lastPlaced as Order | null;
    if (typeof r === "object" && "error" in r) {
      core.reinstate(o, now);
      statuses.push(r);
      continue;
    }
    if (placed && o.tpsl && placed.tpsl) {
      placed.tpsl.siblingOids = o.tpsl.siblingOids;
      for (const oid of o.tpsl.siblingOids) {
        const sib = a.orders.get(oid)?.tpsl;
        if (sib) sib.siblingOids = sib.siblingOids.map((x) => (x === o.oid ? placed.oid : x));
      }
    }
    // The group answers carry no oid; a modify answers like a plain order.
    statuses.push(
      typeof r === "string" && placed
        ? { resting: { oid: placed.oid, ...(placed.cloid ? { cloid: placed.cloid } : {}) } }
        : r,
    );
  }
  if (responseType === "order") return ok("order", { statuses });
  const first = statuses[0];
  return first && typeof first === "object" && "error" in first ? err(first.error) : ok("default");
}

function cancel(
  core: VenueCore,
  a: Account,
  cancels: unknown,
  now: number,
  key: (c: Record<string, unknown>) => [unknown, unknown],
): ExchangeResponse {
  if (!Array.isArray(cancels)) return err("Invalid cancel action.");
  const statuses = cancels.map((c: Record<string, unknown>) => {
    const [asset, id] = key(c ?? {});
    let o: Order | undefined;
    if (typeof id === "number") o = a.orders.get(id);
    else if (typeof id === "string") o = a.cloids.get(id.toLowerCase());
    if (o && o.m.asset !== asset) o = undefined;
    const r = core.cancel(a, o, now);
    return r === "success" ? r : { error: `${r.error.replace(/\.$/, ".")} asset=${String(asset)}` };
  });
  return ok("cancel", { statuses });
}

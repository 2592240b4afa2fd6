import { fmtScaled, parseScaled } from "../fixed.ts";
import type { Account } from "../types.ts";
import type { InfoCtx, InfoHandler } from "./context.ts";
import { userAccount } from "./context.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Each window of the portfolio graph: its length (null = since the account's first event) and sample step. */
const WINDOWS: { name: string; span: number | null; step: number }[] = [
  { name: "day", span: DAY, step: HOUR },
  { name: "week", span: 7 * DAY, step: 6 * HOUR },
  { name: "month", span: 30 * DAY, step: DAY },
  { name: "allTime", span: null, step: DAY },
];

/** A change of the account: money moved in or out (`flow`), or profit realized (`pnl`), micro-USDC. */
interface Change {
  time: number;
  flow: number;
  pnl: number;
  volume: number;
}

/**
 * portfolio {user}: account value and PnL over the day, week, month and all time, plus the volume
 * traded in each window. Past samples carry the realized PnL (fills net of fees, funding); the last
 * sample is the account marked to the current price. The sim only lists perps, so the perp* windows
 * repeat the totals.
 */
export const portfolio: InfoHandler = (c, r) => {
  const a = userAccount(c, r.user);
  const changes = changesOf(a);
  const firstTime = changes[0]?.time ?? c.now;
  const equityNow = equity(c, a);
  const out: [string, unknown][] = [];
  const graphs = WINDOWS.map((w) => [w.name, graph(changes, equityNow, c.now, w, firstTime)] as const);
  for (const [name, g] of graphs) out.push([name, g]);
  for (const [name, g] of graphs) out.push([`perp${name[0]!.toUpperCase()}${name.slice(1)}`, g]);
  return out;
};

function changesOf(a: Account): Change[] {
  const out: Change[] = [];
  for (const u of a.ledger) {
    const usdc = parseScaled(u.delta.usdc, 6)?.scaled ?? 0;
    let flow = 0;
    if (u.delta.type === "deposit") flow = usdc;
    else if (u.delta.type === "withdraw") flow = -usdc;
    else if (u.delta.type === "internalTransfer") flow = u.delta.user === a.addr ? -usdc : usdc;
    if (flow !== 0) out.push({ time: u.time, flow, pnl: 0, volume: 0 });
  }
  for (const f of a.fills) out.push({ time: f.time, flow: 0, pnl: f.closedPnl - f.fee, volume: f.px * f.sz });
  for (const p of a.fundings) out.push({ time: p.time, flow: 0, pnl: p.usdc, volume: 0 });
  return out.sort((x, y) => x.time - y.time);
}

/** The account's value now: free cash, isolated margins, and every position's unrealized PnL. */
function equity(c: InfoCtx, a: Account): number {
  let v = a.cash;
  for (const pool of a.dexPools.values()) v += pool.cash;
  for (const [idx, p] of a.positions) {
    if (p.isolated) v += p.isoMargin;
    v += c.core.positionUpnl(p, c.core.markPx(c.core.markets[idx]!));
  }
  return v;
}

function graph(
  changes: Change[],
  equityNow: number,
  now: number,
  w: { span: number | null; step: number },
  firstTime: number,
) {
  const start = w.span === null ? firstTime : Math.max(firstTime, now - w.span);
  const times: number[] = [];
  for (let t = start; t < now; t += w.step) times.push(t);
  let flows = 0;
  let pnl = 0;
  let i = 0;
  let vlm = 0;
  const values: [number, number, number][] = [];
  for (const t of times) {
    for (; i < changes.length && changes[i]!.time <= t; i++) {
      flows += changes[i]!.flow;
      pnl += changes[i]!.pnl;
      if (changes[i]!.time >= start) vlm += changes[i]!.volume;
    }
    values.push([t, flows + pnl, pnl]);
  }
  for (; i < changes.length; i++) {
    flows += changes[i]!.flow;
    if (changes[i]!.time >= start) vlm += changes[i]!.volume;
  }
  const pnlNow = equityNow - flows;
  values.push([now, equityNow, pnlNow]);
  const basePnl = values[0]![2];
  return {
    accountValueHistory: values.map(([t, v]) => [t, fmtScaled(Math.max(0, v), 6)]),
    pnlHistory: values.map(([t, , p]) => [t, fmtScaled(p - basePnl, 6)]),
    vlm: fmtScaled(vlm, 6),
  };
}

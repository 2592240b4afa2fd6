import { UserError } from "../core/errors.ts";
import { CANDLE_INTERVALS, type CandleInterval } from "./types.ts";

/** Parsing of the `hl data` / `hl sim export` option values: each bad value is one readable line. */

export function positiveInt(option: string, raw: string, max = Number.MAX_SAFE_INTEGER): number {
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(n) || n < 1 || n > max)
    throw new UserError(`${option} must be a whole number from 1 to ${max}, got "${raw}"`);
  return n;
}

export function nonNegativeInt(option: string, raw: string, max = 2 ** 32 - 1): number {
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || n > max)
    throw new UserError(`${option} must be a whole number from 0 to ${max}, got "${raw}"`);
  return n;
}

/** "ETH,BTC , yex:VXX" → ["ETH", "BTC", "yex:VXX"]. */
export function coinList(option: string, raw: string): string[] {
  const coins = raw
    .split(",")
    .map((c) => c.trim())
    .filter(Boolean);
  if (coins.length === 0) throw new UserError(`${option} needs at least one coin, e.g. ETH,BTC`);
  return coins;
}

export function candleInterval(raw: string): CandleInterval {
  if (!(CANDLE_INTERVALS as readonly string[]).includes(raw))
    throw new UserError(`--interval must be one of ${CANDLE_INTERVALS.join(", ")}, got "${raw}"`);
  return raw as CandleInterval;
}

/** A UTC instant: "2026-01-31" (midnight UTC), an ISO date-time, or epoch milliseconds. */
export function instant(option: string, raw: string): number {
  const s = raw.trim();
  let ms = Number.NaN;
  if (/^\d{4}-\d{2}-\d{2}$/.test(s)) ms = Date.parse(`${s}T00:00:00Z`);
  else if (/^\d{4}-\d{2}-\d{2}T/.test(s)) ms = Date.parse(/(Z|[+-]\d{2}:?\d{2})$/.test(s) ? s : `${s}Z`);
  else if (/^\d{10,}$/.test(s)) ms = Number(s);
  if (!Number.isFinite(ms))
    throw new UserError(
      `${option} must be a date (2026-01-31), an ISO time (2026-01-31T12:00Z) or epoch ms, got "${raw}"`,
    );
  return ms;
}

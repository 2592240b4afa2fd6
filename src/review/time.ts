import { UserError } from "../core/errors.ts";

/** "YYYY-MM-DD" → UTC midnight in ms; anything else (including 2026-02-30) is a UserError. */
export function parseUtcDate(date: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  const ms = m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : Number.NaN;
  if (!m || Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== date) {
    throw new UserError(`Invalid date "${date}": use YYYY-MM-DD (UTC)`);
  }
  return ms;
}

export function utcDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** File-name stamp in UTC, sortable: 2026-03-03-140509. */
export function fileStamp(ms: number): string {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 10)}-${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}`;
}

/** Human UTC time: 2026-03-03 14:05 UTC. */
export function humanUtc(ms: number): string {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

import { Decimal } from "decimal.js";

/** Money arithmetic: one Decimal configuration for the whole code base. */
export const D = Decimal.clone({
  precision: 40,
  rounding: Decimal.ROUND_HALF_EVEN,
  toExpNeg: -30,
  toExpPos: 40,
});
export type Dec = InstanceType<typeof D>;
export type DecLike = Dec | string | number;

export function dec(v: DecLike): Dec {
  return v instanceof D ? v : new D(v);
}

/** A string already in wire form: what `wire` would give back unchanged ("-0" is not: it is "0"). */
const WIRE_FORM = /^-?(?:0|[1-9]\d*)(?:\.\d*[1-9])?$/;

/** Wire form of a decimal: plain notation, no trailing zeros, "0" for zero. */
export function wire(v: DecLike): string {
  // Most strings passed here are wire strings already: no need to parse and print them again.
  if (typeof v === "string" && v !== "-0" && WIRE_FORM.test(v)) return v;
  const d = dec(v);
  if (d.isZero()) return "0";
  return d.toFixed();
}

/** A JSON number derived from a decimal (for contract fields typed float). */
export function num(v: DecLike, dp?: number): number {
  const d = dec(v);
  return Number(dp === undefined ? d.toString() : d.toDecimalPlaces(dp).toString());
}

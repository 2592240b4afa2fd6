import { D } from "./decimal.ts";

/** Money as the review tools print it: signed, to the cent (`$+9.00`, `$-115.80`); files keep every digit. */
export function usd(value: string | number): string {
  const cents = new D(value).toDecimalPlaces(2);
  return `$${cents.isNegative() && !cents.isZero() ? "-" : "+"}${cents.abs().toFixed(2)}`;
}

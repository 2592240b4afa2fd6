import type { Dec } from "../../core/decimal.ts";

/** What one read of one source gave: an annualised rate (fraction) or why there is none. */
export type SourceResult = { ok: true; rate: Dec } | { ok: false; error: string };

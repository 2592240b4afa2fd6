import { createHash } from "node:crypto";
import { D, dec } from "../core/decimal.ts";
import { priceDecimals, roundPrice } from "../exchange/rounding.ts";

/**
 * The exchange backstop of a guarded position, as pure decisions: where its stop-market trigger rests
 * (the tighter of the hard stop and the trailing floor, loosened by a margin so the client path, which
 * sees every streamed mid, normally acts first), its client order id (derived from what it guards, so
 * a restart finds it again), and when a move of the floor is worth a `modify` (enough ticks, not too
 * often: the exchange's weight budget is shared with the closes).
 */

export interface BackstopSettings {
  /** Whether guarded positions keep a stop resting on the exchange at all. */
  enabled: boolean;
  /** Percent of price the trigger sits beyond the client's stop (0.5 = 0.5 %). */
  margin_pct: number;
  /** The trigger follows the floor only once it would move at least this many price ticks. */
  min_move_ticks: number;
  /** …and at most once per this many seconds per position (one modify = 1 weight). */
  min_interval_s: number;
}

export const DEFAULT_BACKSTOP: BackstopSettings = {
  enabled: true,
  margin_pct: 0.5,
  min_move_ticks: 10,
  min_interval_s: 60,
};

/** Who placed a backstop: each owner reconciles (and may cancel) only its own. */
export type BackstopOwner = "wolf" | "run" | "dsl" | "trade";
const OWNER_BYTE: Record<BackstopOwner, string> = { wolf: "01", run: "02", dsl: "03", trade: "04" };
/** The first bytes of every backstop's cloid ("bstp"), then the owner byte, then a hash of the key. */
const TAG = "0x62737470";

/** The deterministic cloid of the backstop guarding `key` (e.g. a WOLF slot's position id). */
export function backstopCloid(owner: BackstopOwner, key: string): `0x${string}` {
  const hash = createHash("sha256").update(`${owner}:${key}`).digest("hex").slice(0, 22);
  return `${TAG}${OWNER_BYTE[owner]}${hash}`;
}

/** Whether a cloid is one of `owner`'s backstops. */
export function isBackstopCloid(owner: BackstopOwner, cloid: string | null | undefined): boolean {
  return typeof cloid === "string" && cloid.toLowerCase().startsWith(`${TAG}${OWNER_BYTE[owner]}`);
}

export type PositionSide = "long" | "short";

/**
 * The backstop's trigger price: the tightest of the given stops (highest for a long, lowest for a
 * short; non-positive ones ignored), moved `marginPct` percent further from the market, on the price
 * grid, rounded away from the market. Undefined when no stop is given.
 */
export function backstopTriggerPx(
  side: PositionSide,
  stops: readonly number[],
  marginPct: number,
  szDecimals: number,
): string | undefined {
  const valid = stops.filter((s) => Number.isFinite(s) && s > 0);
  if (valid.length === 0) return undefined;
  const tightest = side === "long" ? Math.max(...valid) : Math.min(...valid);
  const m = new D(marginPct).div(100);
  const px = dec(tightest).times(side === "long" ? new D(1).minus(m) : new D(1).plus(m));
  return roundPrice(px, szDecimals, side === "long" ? "down" : "up");
}

/** The smallest price step at this price (5 significant figures, at most 6 − szDecimals decimals). */
export function priceTick(px: string, szDecimals: number): InstanceType<typeof D> {
  return new D(10).pow(-priceDecimals(dec(px), szDecimals));
}

interface RestingBackstop {
  triggerPx: string;
  size: string;
  /** When it was last placed or modified (ms). */
  updatedMs: number;
}

type BackstopChange =
  | { kind: "keep" }
  /** `why`: "size" (the position changed size: always), "ratchet" (the floor moved enough). */
  | { kind: "modify"; why: "size" | "ratchet" };

/**
 * Whether a resting backstop should be modified to `wanted`. A size change always is (a partly
 * closed position must not leave a stop larger than itself, nor a grown one a smaller stop). The
 * trigger only ever tightens, by at least `min_move_ticks` ticks and no sooner than
 * `min_interval_s` after the last change — so a trending market costs at most 3600 / min_interval_s
 * modifies per position per hour.
 */
export function backstopChange(
  side: PositionSide,
  resting: RestingBackstop,
  wanted: { triggerPx: string; size: string },
  settings: BackstopSettings,
  szDecimals: number,
  nowMs: number,
): BackstopChange {
  if (!dec(resting.size).eq(wanted.size)) return { kind: "modify", why: "size" };
  const move = dec(wanted.triggerPx).minus(resting.triggerPx);
  const tighter = side === "long" ? move.gt(0) : move.lt(0);
  if (!tighter) return { kind: "keep" };
  const ticks = move.abs().div(priceTick(resting.triggerPx, szDecimals));
  if (ticks.lt(settings.min_move_ticks)) return { kind: "keep" };
  if (nowMs - resting.updatedMs < settings.min_interval_s * 1000) return { kind: "keep" };
  return { kind: "modify", why: "ratchet" };
}

import { RateLimitedError, RejectedError } from "./errors.ts";

/**
 * What the exchange's refusal of an order means, and what a trading loop should do about it instead
 * of sending the same order again. The patterns match Hyperliquid's documented order errors
 * (for-developers/api/error-responses), which the exchange sends with a trailing ` asset=<id>`, its
 * address-based rate-limit refusal ("Too many cumulative requests sent …"), and "Trading is halted.",
 * its answer for a delisted or halted market (recorded mainnet answers; not in the error table).
 */
type RejectionReason =
  | "tick_size"
  | "min_value"
  | "insufficient_margin"
  | "reduce_only_increase"
  | "post_only_match"
  | "ioc_no_match"
  | "no_liquidity"
  | "open_interest_cap"
  | "oracle_price"
  | "max_position"
  | "max_open_orders"
  | "bad_trigger_price"
  | "insufficient_spot_balance"
  | "market_halted"
  | "rate_limited"
  | "account_missing"
  | "unknown";

/**
 * - `retry_next_tick`: the market or the position moved; the next tick's fresh plan may succeed.
 * - `shrink`: the size is too large for the account or its margin tier; send a smaller order.
 * - `skip_coin`: the same order will keep failing for a while; leave this coin alone for `cooldownMs`.
 * - `stop`: nothing the loop can change fixes it (the wallet is not an account); stop and tell the operator.
 */
type RejectionReaction = "retry_next_tick" | "shrink" | "skip_coin" | "stop";

export interface Rejection {
  reason: RejectionReason;
  reaction: RejectionReaction;
  /** How long to leave the coin alone (only for `skip_coin`, else 0). */
  cooldownMs: number;
  /** The exchange's own text. */
  message: string;
}

const SKIP_MS = 60_000;
/** Once the address budget is spent, Hyperliquid allows one action every 10 s. */
const RATE_LIMIT_MS = 10_000;
/**
 * A halted market does not come back within a minute: the exchange halts a perp it delists (for
 * good) or a HIP-3 deployer halts one (until the deployer resumes it). An hour keeps a loop (and a
 * WOLF slot) from re-entering it 60 times an hour while still noticing a resumption the same day.
 */
export const HALTED_MS = 60 * 60_000;
/**
 * A closing (reduce-only) order on a halted market is refused too, yet the position is still at risk:
 * it is tried again once a minute (one request, not one per tick or per price) so it goes out soon
 * after the market trades again.
 */
export const HALTED_CLOSE_RETRY_MS = 60_000;

interface Rule {
  pattern: RegExp;
  reason: RejectionReason;
  reaction: RejectionReaction;
  cooldownMs?: number;
}

const RULES: readonly Rule[] = [
  { pattern: /divisible by tick size|invalid price/i, reason: "tick_size", reaction: "retry_next_tick" },
  // One plan's small order (a skewed quote, a remainder) says nothing about the next plan; skipping the
  // coin would silence a market maker's other quotes too.
  { pattern: /minimum value of \$?10/i, reason: "min_value", reaction: "retry_next_tick" },
  { pattern: /insufficient margin/i, reason: "insufficient_margin", reaction: "shrink" },
  {
    pattern: /reduce only order would increase/i,
    reason: "reduce_only_increase",
    reaction: "retry_next_tick",
  },
  {
    pattern: /post only order would have immediately matched/i,
    reason: "post_only_match",
    reaction: "retry_next_tick",
  },
  { pattern: /could not immediately match/i, reason: "ioc_no_match", reaction: "retry_next_tick" },
  { pattern: /no liquidity available/i, reason: "no_liquidity", reaction: "skip_coin" },
  {
    pattern: /open interest (is capped|cap|too quickly)|at open interest cap|increase open interest/i,
    reason: "open_interest_cap",
    reaction: "skip_coin",
  },
  {
    pattern: /away from the reference price|too far from oracle|oracle/i,
    reason: "oracle_price",
    reaction: "skip_coin",
  },
  { pattern: /exceed margin tier limit|max position/i, reason: "max_position", reaction: "shrink" },
  { pattern: /open orders/i, reason: "max_open_orders", reaction: "skip_coin" },
  {
    pattern: /too many (cumulative )?requests|rate limit/i,
    reason: "rate_limited",
    reaction: "skip_coin",
    cooldownMs: RATE_LIMIT_MS,
  },
  { pattern: /does not exist/i, reason: "account_missing", reaction: "stop" },
  // The mark crossed the trigger since the plan was made: a plan from the new mark places it.
  { pattern: /invalid tp\/sl price/i, reason: "bad_trigger_price", reaction: "retry_next_tick" },
  { pattern: /insufficient spot balance/i, reason: "insufficient_spot_balance", reaction: "shrink" },
  { pattern: /trading is halted/i, reason: "market_halted", reaction: "skip_coin", cooldownMs: HALTED_MS },
];

/** Classify one refusal text of the exchange (an order status `error`, or a whole-action `err`). */
export function classifyRejection(message: string): Rejection {
  for (const rule of RULES) {
    if (rule.pattern.test(message)) {
      const cooldownMs = rule.reaction === "skip_coin" ? (rule.cooldownMs ?? SKIP_MS) : 0;
      return { reason: rule.reason, reaction: rule.reaction, cooldownMs, message };
    }
  }
  // An unrecognised refusal is not retried blindly: the coin is left alone for a while.
  return { reason: "unknown", reaction: "skip_coin", cooldownMs: SKIP_MS, message };
}

/**
 * The rejection an error stands for, or undefined when the error says nothing about the order's fate
 * (a timeout or a reset connection: the outcome is unknown and must be resolved, not classified).
 */
export function rejectionOf(err: unknown): Rejection | undefined {
  if (err instanceof RateLimitedError)
    return { reason: "rate_limited", reaction: "skip_coin", cooldownMs: RATE_LIMIT_MS, message: err.message };
  if (err instanceof RejectedError) return classifyRejection(err.message);
  return undefined;
}

/** Coins left alone after a `skip_coin` rejection, until their cooldown ends. Pure: the caller passes the time. */
export class CoinCooldowns {
  private readonly until = new Map<string, { untilMs: number; rejection: Rejection }>();

  /** Record a rejection; only `skip_coin` ones start (or extend) a cooldown. */
  note(coin: string, rejection: Rejection, nowMs: number): void {
    if (rejection.reaction !== "skip_coin") return;
    const untilMs = nowMs + rejection.cooldownMs;
    const prev = this.until.get(coin);
    if (!prev || prev.untilMs < untilMs) this.until.set(coin, { untilMs, rejection });
  }

  /** The rejection that still keeps `coin` aside at `nowMs`, if any. */
  blocking(coin: string, nowMs: number): Rejection | undefined {
    const entry = this.until.get(coin);
    if (!entry) return undefined;
    if (entry.untilMs <= nowMs) {
      this.until.delete(coin);
      return undefined;
    }
    return entry.rejection;
  }
}

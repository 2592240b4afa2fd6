import { z } from "zod";

/**
 * A published SWP feed tick (interfaces.md D): `oracle_px` is the headline; the rest lets a reader
 * check the methodology (raw index, the live rate used for the pending hour, the fixed leg).
 */
export const feedTickSchema = z.object({
  /** Feed symbol, e.g. "BTCSWP". */
  feed: z.string(),
  /** Published price: 6 decimals. */
  oracle_px: z.string().regex(/^-?\d+\.\d{6}$/),
  /** Exchange time of the tick, ms. */
  timestamp: z.number().int(),
  /** Unclamped index price, 6 decimals. */
  raw_px: z.string(),
  /** Hourly funding rate used for the pending (unsettled) time. */
  funding_rate: z.string(),
  /** Fixed leg K in force for the pending hour. */
  fixed_leg: z.string(),
  /** End of the last settled hour, ms. */
  settled_through: z.number().int(),
});

export type FeedTick = z.infer<typeof feedTickSchema>;

/** Page of stored ticks (GET /api/history). `next_from` is set when more ticks follow. */
export const historyPageSchema = z.object({
  feed: z.string(),
  ticks: z.array(feedTickSchema),
  next_from: z.number().int().nullable(),
});

export type HistoryPage = z.infer<typeof historyPageSchema>;

/** A tick from SSE `data`, or null when the text is not a valid tick. */
export function parseTickData(data: string): FeedTick | null {
  try {
    const parsed = feedTickSchema.safeParse(JSON.parse(data));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

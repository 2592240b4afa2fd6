import type { Venue } from "../venue.ts";

/**
 * Serialized answers of the hot market-data requests (allMids, l2Book), kept until the venue says
 * that book or dex changed, and never longer than `ttlMs` (the answer carries a time). Many agents
 * polling the same book then cost one render per change instead of one per request.
 */
export class InfoCache {
  private readonly entries = new Map<string, { json: string; at: number }>();
  private readonly keysByCoin = new Map<string, Set<string>>();
  private readonly unsubscribe: () => void;

  constructor(
    venue: Venue,
    private readonly ttlMs = 250,
    private readonly wallNow: () => number = Date.now,
  ) {
    this.unsubscribe = venue.subscribe(
      (e) => {
        if (e.kind === "l2Book") {
          const keys = this.keysByCoin.get(e.coin);
          if (keys) for (const k of keys) this.entries.delete(k);
          this.keysByCoin.delete(e.coin);
        } else if (e.kind === "allMids") {
          this.entries.delete(`allMids|${e.dex}`);
        }
      },
      // Only book and mids changes matter here: no account, trade or candle events are rendered for it.
      { user: () => false, coin: () => false },
    );
  }

  /** The cache key of a request, or undefined when it is not one of the cached kinds. */
  static keyOf(req: Record<string, unknown>): string | undefined {
    if (req.type === "allMids") {
      const dex = req.dex ?? "";
      return typeof dex === "string" && Object.keys(req).every((k) => k === "type" || k === "dex")
        ? `allMids|${dex}`
        : undefined;
    }
    if (req.type === "l2Book" && typeof req.coin === "string") {
      const extra = Object.keys(req).some((k) => !["type", "coin", "nSigFigs", "mantissa"].includes(k));
      return extra
        ? undefined
        : `l2Book|${req.coin}|${String(req.nSigFigs ?? "")}|${String(req.mantissa ?? "")}`;
    }
    return undefined;
  }

  get(key: string): string | undefined {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    if (this.wallNow() - hit.at > this.ttlMs) {
      this.entries.delete(key);
      return undefined;
    }
    return hit.json;
  }

  set(key: string, req: Record<string, unknown>, json: string): void {
    this.entries.set(key, { json, at: this.wallNow() });
    if (req.type === "l2Book") {
      const coin = req.coin as string;
      let keys = this.keysByCoin.get(coin);
      if (!keys) {
        keys = new Set();
        this.keysByCoin.set(coin, keys);
      }
      keys.add(key);
    }
  }

  close(): void {
    this.unsubscribe();
    this.entries.clear();
    this.keysByCoin.clear();
  }
}

import type { Venue } from "../venue.ts";
import { jsonHeaders } from "./respond.ts";

/** A cached answer, ready to write: its bytes and the raw header list it is sent with. */
interface CachedAnswer {
  readonly key: string;
  readonly bytes: Buffer;
  readonly headers: readonly string[];
  readonly at: number;
}

/**
 * Serialized answers of the hot market-data requests (allMids, l2Book), kept until the venue says
 * that book or dex changed, and never longer than `ttlMs` (the answer carries a time). Many agents
 * polling the same book then cost one render per change instead of one per request. Answers are also
 * found by the request's text exactly as a client wrote it, so a poller that repeats its request is
 * answered without the request being parsed, and the stored bytes are written without being encoded.
 */
export class InfoCache {
  /** Request texts remembered at most; beyond that the index starts over (clients choose the texts). */
  static readonly MAX_TEXTS = 1024;
  private readonly entries = new Map<string, CachedAnswer>();
  private readonly byText = new Map<string, CachedAnswer>();
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

  /** How many request texts are indexed now. */
  get textCount(): number {
    return this.byText.size;
  }

  /** The live answer to a request text seen before, or undefined (never seen, book changed, or too old). */
  lookupText(text: string): CachedAnswer | undefined {
    const hit = this.byText.get(text);
    if (!hit) return undefined;
    if (this.entries.get(hit.key) === hit && this.fresh(hit)) return hit;
    this.byText.delete(text);
    return undefined;
  }

  /** The live answer under `key`; when `text` is given, that request text finds it directly from now on. */
  get(key: string, text?: string): CachedAnswer | undefined {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    if (!this.fresh(hit)) {
      this.entries.delete(key);
      return undefined;
    }
    if (text !== undefined) this.index(text, hit);
    return hit;
  }

  set(key: string, req: Record<string, unknown>, json: string, text?: string): CachedAnswer {
    const bytes = Buffer.from(json);
    const entry: CachedAnswer = { key, bytes, headers: jsonHeaders(bytes.length), at: this.wallNow() };
    this.entries.set(key, entry);
    if (text !== undefined) this.index(text, entry);
    if (req.type === "l2Book") {
      const coin = req.coin as string;
      let keys = this.keysByCoin.get(coin);
      if (!keys) {
        keys = new Set();
        this.keysByCoin.set(coin, keys);
      }
      keys.add(key);
    }
    return entry;
  }

  close(): void {
    this.unsubscribe();
    this.entries.clear();
    this.byText.clear();
    this.keysByCoin.clear();
  }

  private fresh(entry: CachedAnswer): boolean {
    return this.wallNow() - entry.at <= this.ttlMs;
  }

  private index(text: string, entry: CachedAnswer): void {
    if (this.byText.size >= InfoCache.MAX_TEXTS && !this.byText.has(text)) this.byText.clear();
    this.byText.set(text, entry);
  }
}

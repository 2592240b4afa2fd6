import type { WalletFill } from "./attribution.ts";
import type { PointsStore, StoredFill } from "./store.ts";

/** Hyperliquid serves only a user's most recent 10,000 fills, whatever the time window asked for. */
export const EXCHANGE_FILL_WINDOW = 10_000;

/** A fill as the exchange reports it, with its trade id (unique per user and fill). */
export type SourceFill = WalletFill & { crossed: boolean; tid: number };

/** What a wallet's fill history can vouch for. */
interface HistoryCoverage {
  /** True when every fill since the program start was seen. */
  complete: boolean;
  /** When incomplete: fills before this time (ms) may be missing. */
  missingBeforeMs: number | null;
}

/** Wallets whose stored fills are kept in memory between syncs. */
const RECENT_WALLETS = 2_000;

/**
 * Every fill of the scored coin the points service has seen, per wallet, in the points store. Each sync asks
 * the exchange only for fills since the last one seen, so a wallet followed often enough keeps its
 * whole history even after it has traded far past the exchange's 10,000-fill window; when a sync
 * finds that window overflowed, the gap is recorded and reported instead of silently scored as zero.
 */
export class FillHistory {
  /**
   * Recently scored wallets' stored fills, reused while the wallet's stored history is unchanged
   * (most requests): nothing added here, and its sync point not moved by another replica either.
   */
  private readonly recent = new Map<string, { fromMs: number; throughMs: number; fills: SourceFill[] }>();

  constructor(
    private readonly store: PointsStore,
    private readonly coin: string,
  ) {}

  /**
   * Fetch what is new for `user` (from the last fill seen, else the program start), store the scored
   * coin's fills, and return every stored fill since the program start with the coverage. No two
   * processes sync one wallet at once, and within `freshMs` of another process's sync the stored
   * fills are used as they are (see PointsStore.exclusiveSync).
   */
  async sync(
    user: string,
    fetch: (user: string, startMs: number) => Promise<SourceFill[]>,
    programStartMs: number,
    freshMs = 0,
  ): Promise<{ fills: SourceFill[]; coverage: HistoryCoverage }> {
    const key = user.toLowerCase();
    let added = 0;
    await this.store.exclusiveSync(key, freshMs, async () => {
      added = await this.fetchNew(key, fetch, programStartMs);
    });
    const after = await this.store.walletSync(key);
    const missingBeforeMs =
      after?.missingBeforeMs && after.missingBeforeMs > 0 ? after.missingBeforeMs : null;
    return {
      fills: await this.fillsOf(key, programStartMs, after?.throughMs ?? programStartMs, added > 0),
      coverage: { complete: missingBeforeMs === null, missingBeforeMs },
    };
  }

  /** Ask the exchange for the fills since the last one seen and store them; returns how many were new. */
  private async fetchNew(
    key: string,
    fetch: (user: string, startMs: number) => Promise<SourceFill[]>,
    programStartMs: number,
  ): Promise<number> {
    const before = await this.store.walletSync(key);
    const fromMs = Math.max(before?.throughMs ?? programStartMs, programStartMs);
    const fetched = await fetch(key, fromMs);
    let oldest = Number.POSITIVE_INFINITY;
    let newest = fromMs;
    for (const f of fetched) {
      if (f.time < oldest) oldest = f.time;
      if (f.time > newest) newest = f.time;
    }
    // A full window that starts after `fromMs` means older fills fell out of the exchange's reach.
    const gap = fetched.length >= EXCHANGE_FILL_WINDOW && oldest > fromMs ? oldest : null;
    const scored: StoredFill[] = fetched
      .filter((f) => f.coin === this.coin)
      .map((f) => ({
        tid: f.tid,
        time: f.time,
        side: f.side,
        px: f.px,
        sz: f.sz,
        crossed: f.crossed,
        builderFee: f.builderFee ?? null,
      }));
    return this.store.recordSync(key, scored, newest, gap);
  }

  /** The stored fills of `user` since `fromMs`: from memory when nothing changed since the last read. */
  private async fillsOf(
    user: string,
    fromMs: number,
    throughMs: number,
    changed: boolean,
  ): Promise<SourceFill[]> {
    const hit = this.recent.get(user);
    const fresh = hit && hit.fromMs === fromMs && hit.throughMs === throughMs && !changed;
    const fills = fresh ? hit.fills : await this.stored(user, fromMs);
    this.recent.delete(user); // set again below: the map's first key is the least recently used
    this.recent.set(user, { fromMs, throughMs, fills });
    if (this.recent.size > RECENT_WALLETS) {
      const oldest = this.recent.keys().next().value;
      if (oldest !== undefined) this.recent.delete(oldest);
    }
    return fills;
  }

  /** Wallets synced at least once (the ones worth following). */
  knownUsers(): Promise<string[]> {
    return this.store.knownWallets();
  }

  private async stored(user: string, fromMs: number): Promise<SourceFill[]> {
    return (await this.store.fillsSince(user, fromMs)).map((r) => ({
      tid: r.tid,
      time: r.time,
      coin: this.coin,
      side: r.side,
      px: r.px,
      sz: r.sz,
      crossed: r.crossed,
      ...(r.builderFee !== null ? { builderFee: r.builderFee } : {}),
    }));
  }
}

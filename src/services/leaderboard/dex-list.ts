import type { AccountSource, LeaderboardNetwork } from "./account-source.ts";

/** HIP-3 dexes are deployed rarely: their list is asked again after this (ms). */
const DEX_LIST_TTL_MS = 5 * 60_000;

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/** Each network's HIP-3 dex list (`perpDexs`, weight 20), asked at most once per 5 min; a failure is not kept. */
export class DexLists {
  private readonly lists = new Map<LeaderboardNetwork, { at: number; dexes: Promise<string[]> }>();

  constructor(
    private readonly source: AccountSource,
    private readonly timeoutMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  get(network: LeaderboardNetwork): Promise<string[]> {
    const cached = this.lists.get(network);
    if (cached && this.now() - cached.at < DEX_LIST_TTL_MS) return cached.dexes;
    const dexes = withTimeout(this.source(network).hip3Dexes(), this.timeoutMs).catch((err: unknown) => {
      this.lists.delete(network);
      throw new Error(`Failed to query Hyperliquid: ${err instanceof Error ? err.message : String(err)}`);
    });
    this.lists.set(network, { at: this.now(), dexes });
    return dexes;
  }
}

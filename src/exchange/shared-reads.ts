/**
 * Slowly changing public reads shared by every client of this process that talks to the same API
 * server: several agents (or services) behind one IP then pay for one read per period, not one each
 * per tick. One request in flight per key; a failed read is forgotten at once.
 */
const entries = new Map<string, { at: number; value: Promise<unknown> }>();

export function sharedRead<T>(
  key: string,
  maxAgeMs: number,
  load: () => Promise<T>,
  opts: { fresh?: boolean; now?: () => number } = {},
): Promise<T> {
  const t = (opts.now ?? Date.now)();
  const hit = entries.get(key);
  if (hit && !opts.fresh && t - hit.at < maxAgeMs) return hit.value as Promise<T>;
  const value = load();
  const entry = { at: t, value };
  entries.set(key, entry);
  value.catch(() => {
    if (entries.get(key) === entry) entries.delete(key);
  });
  return value;
}

/** Default age of shared asset contexts (funding, open interest, volume, marks): 60 s. */
const ASSET_CONTEXT_MAX_AGE_S = 60;

/**
 * How old shared asset contexts (`metaAndAssetCtxs`, weight 20 each) may be:
 * HL_ASSET_CTX_MAX_AGE_S seconds, default 60. Funding settles hourly and open interest and volume
 * drift slowly, so a tick-rate read would spend weight for nothing.
 */
export function assetContextMaxAgeMs(env: Record<string, string | undefined> = process.env): number {
  const raw = env.HL_ASSET_CTX_MAX_AGE_S;
  const s = raw === undefined || raw === "" ? ASSET_CONTEXT_MAX_AGE_S : Number(raw);
  return Number.isFinite(s) && s >= 0 ? s * 1000 : ASSET_CONTEXT_MAX_AGE_S * 1000;
}

/**
 * How long the market list (`perpDexs`, each dex's `meta`) is shared between clients of a process
 * (10 min): listings change rarely, and `refreshSymbols()` reads them again at once.
 */
export const SYMBOLS_MAX_AGE_MS = 600_000;

/**
 * How long an account's approved builder fee (`maxBuilderFee`, weight 20) is shared (10 min): it
 * changes only when the user signs an approval, after which the approving code reads it fresh.
 */
export const BUILDER_FEE_MAX_AGE_MS = 600_000;

/** Forget every shared read: the next read of each goes to the server, as in a new process. */
export function forgetSharedReads(): void {
  entries.clear();
}

import { D } from "../../core/decimal.ts";
import type { CatalogEntry } from "./catalog.ts";
import type { SourceResult } from "./source-result.ts";

/** Where funding comes from: the exchange client's `metaAndAssetCtxs` (the `funding` of each asset). */
export interface FundingPort {
  /** Current hourly funding rate of each coin of the main perp dex, as decimal strings. */
  hourlyFunding(): Promise<ReadonlyMap<string, string>>;
}

const HOURS_PER_YEAR = 8760;

/** An annualised funding rate beyond ±1000 % is treated as garbage rather than a rate. */
const PLAUSIBLE_ANNUAL = new D(10);

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timeout after ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/** Read every funding source with one exchange request; hourly rates are annualised × 8760. */
export async function readFundingSources(
  entries: readonly CatalogEntry[],
  port: FundingPort,
  timeoutMs: number,
): Promise<Map<string, SourceResult>> {
  const wanted = entries.filter((e) => e.origin.kind === "funding");
  const out = new Map<string, SourceResult>();
  if (wanted.length === 0) return out;
  let rates: ReadonlyMap<string, string>;
  try {
    rates = await withTimeout(port.hourlyFunding(), timeoutMs);
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    for (const e of wanted) out.set(e.id, { ok: false, error: `funding: ${detail}` });
    return out;
  }
  for (const e of wanted) {
    if (e.origin.kind !== "funding") continue;
    const raw = rates.get(e.origin.coin);
    let annual: InstanceType<typeof D> | undefined;
    try {
      annual = raw === undefined ? undefined : new D(raw).times(HOURS_PER_YEAR);
    } catch {
      annual = undefined;
    }
    if (annual === undefined || !annual.isFinite() || annual.abs().gt(PLAUSIBLE_ANNUAL)) {
      out.set(e.id, { ok: false, error: `no usable funding rate for ${e.origin.coin} (got ${String(raw)})` });
      continue;
    }
    out.set(e.id, { ok: true, rate: annual });
  }
  return out;
}

import { z } from "zod";
import { D } from "../../core/decimal.ts";
import type { CatalogEntry } from "./catalog.ts";
import type { SourceResult } from "./source-result.ts";

/** One pool of the DeFi yields API (`GET {YIELDS_API_URL}/pools`); only the fields we read. */
const poolSchema = z.object({
  chain: z.string(),
  project: z.string(),
  symbol: z.string(),
  // Rates are checked one by one below, so a garbage value is reported rather than silently dropped.
  tvlUsd: z.unknown(),
  apy: z.unknown(),
  apyBase: z.unknown(),
});
type Pool = z.infer<typeof poolSchema>;

const responseSchema = z.object({ data: z.array(z.unknown()) });

/** An APY outside this range (percent) is treated as garbage rather than a rate. */
const PLAUSIBLE_APY_PCT = { min: -100, max: 1000 };

function tvl(p: Pool): number {
  return typeof p.tvlUsd === "number" && Number.isFinite(p.tvlUsd) ? p.tvlUsd : 0;
}

/**
 * Read every yields-API source of the catalogue with one `GET /pools`. The organic yield is used
 * (`apyBase`, else `apy`): token incentives are temporary and not a cost of capital. When several
 * pools match (e.g. several Aave markets on one chain), the deepest by TVL is taken.
 */
export async function readYieldSources(
  entries: readonly CatalogEntry[],
  baseUrl: string,
  timeoutMs: number,
  fetchImpl: typeof fetch = fetch,
): Promise<Map<string, SourceResult>> {
  const wanted = entries.filter((e) => e.origin.kind === "yields");
  const out = new Map<string, SourceResult>();
  if (wanted.length === 0) return out;
  let pools: Pool[];
  try {
    const res = await fetchImpl(`${baseUrl.replace(/\/+$/, "")}/pools`, {
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    const body = responseSchema.parse(await res.json());
    pools = body.data.flatMap((p) => {
      const parsed = poolSchema.safeParse(p);
      return parsed.success ? [parsed.data] : [];
    });
  } catch (err) {
    const detail =
      err instanceof Error ? `${err.name === "TimeoutError" ? "timeout: " : ""}${err.message}` : String(err);
    for (const e of wanted) out.set(e.id, { ok: false, error: `yields API: ${detail}` });
    return out;
  }
  for (const e of wanted) {
    if (e.origin.kind !== "yields") continue;
    const { project, symbol, chain } = e.origin;
    const matches = pools
      .filter(
        (p) => p.project === project && p.chain === chain && p.symbol.toUpperCase() === symbol.toUpperCase(),
      )
      .sort((a, b) => tvl(b) - tvl(a));
    const pool = matches[0];
    if (!pool) {
      out.set(e.id, { ok: false, error: `no ${project} ${symbol} pool on ${chain}` });
      continue;
    }
    const apy = typeof pool.apyBase === "number" ? pool.apyBase : pool.apy;
    if (
      typeof apy !== "number" ||
      !Number.isFinite(apy) ||
      apy < PLAUSIBLE_APY_PCT.min ||
      apy > PLAUSIBLE_APY_PCT.max
    ) {
      out.set(e.id, { ok: false, error: `implausible APY ${String(apy)} for ${project} ${symbol}` });
      continue;
    }
    out.set(e.id, { ok: true, rate: new D(apy).div(100) });
  }
  return out;
}

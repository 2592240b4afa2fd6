import { D, wire } from "../../core/decimal.ts";
import type { CatalogEntry } from "./catalog.ts";
import { type FundingPort, readFundingSources } from "./funding-source.ts";
import {
  computeIsfr,
  ISFR_VERSION,
  type MethodologyParams,
  RATE_CLASSES,
  type Reading,
} from "./methodology.ts";
import type { Snapshot, SnapshotStore, SourceState } from "./snapshot-store.ts";
import type { SourceResult } from "./source-result.ts";
import { readYieldSources } from "./yields-source.ts";

interface IndexerOptions {
  store: SnapshotStore;
  catalog: readonly CatalogEntry[];
  params: MethodologyParams;
  yieldsUrl: string;
  funding: FundingPort;
  sourceTimeoutMs: number;
  /** Snapshots older than this are pruned. */
  retentionMs: number;
  now?: () => number;
  fetch?: typeof fetch;
}

/**
 * Reads every source, keeps each one's last good reading (a failed read leaves the old reading to
 * age into staleness), computes the index and stores the snapshot.
 */
export class IsfrIndexer {
  private readonly now: () => number;
  private readonly states = new Map<string, SourceState>();
  private loaded: Promise<void> | undefined;

  constructor(private readonly opts: IndexerOptions) {
    this.now = opts.now ?? Date.now;
  }

  /** The stored readings (the previous writer's, after a failover) are where this indexer resumes. */
  private load(): Promise<void> {
    this.loaded ??= this.opts.store.sourceStates().then((states) => {
      for (const s of states) this.states.set(s.sourceId, s);
    });
    return this.loaded;
  }

  async snapshot(): Promise<Snapshot> {
    const { catalog, funding, sourceTimeoutMs, yieldsUrl, store } = this.opts;
    await this.load();
    const [yields, fundingResults] = await Promise.all([
      readYieldSources(catalog, yieldsUrl, sourceTimeoutMs, this.opts.fetch),
      readFundingSources(catalog, funding, sourceTimeoutMs),
    ]);
    const tMs = this.now();
    const results = new Map<string, SourceResult>([...yields, ...fundingResults]);
    for (const entry of catalog) {
      const r = results.get(entry.id);
      const prev = this.states.get(entry.id);
      const next: SourceState =
        r?.ok === true
          ? { sourceId: entry.id, rate: wire(r.rate), observedAtMs: tMs, lastAttemptMs: tMs, lastError: null }
          : {
              sourceId: entry.id,
              rate: prev?.rate ?? null,
              observedAtMs: prev?.observedAtMs ?? null,
              lastAttemptMs: tMs,
              lastError: r?.ok === false ? r.error : "not read",
            };
      this.states.set(entry.id, next);
      await store.saveSourceState(next);
    }
    const readings = new Map<string, Reading>();
    for (const s of this.states.values()) {
      if (s.rate !== null && s.observedAtMs !== null)
        readings.set(s.sourceId, { rate: new D(s.rate), observedAtMs: s.observedAtMs });
    }
    const snap = toSnapshot(this.opts.params, readings, tMs);
    await store.save(snap);
    await store.prune(tMs - this.opts.retentionMs);
    return snap;
  }
}

/** The stored form of the index computed from `readings` at `tMs` (published or not). */
export function toSnapshot(params: MethodologyParams, readings: Map<string, Reading>, tMs: number): Snapshot {
  const outcome = computeIsfr(params, readings, tMs);
  const evals = outcome.ok ? outcome.value.sources : outcome.sources;
  const sources = evals.map((s) => ({
    id: s.id,
    class: s.class,
    weight: wire(s.weight),
    nominalWeight: wire(s.nominalWeight),
    status: s.status,
    rate: s.reading ? wire(s.reading.rate) : null,
    observedAtMs: s.reading?.observedAtMs ?? null,
  }));
  const none = Object.fromEntries(RATE_CLASSES.map((c) => [c, null])) as Snapshot["components"];
  const zeros = Object.fromEntries(RATE_CLASSES.map((c) => [c, "0"])) as Snapshot["weights"];
  if (!outcome.ok) {
    return {
      tMs,
      version: ISFR_VERSION,
      rate: null,
      base: null,
      deriv: null,
      fallback: null,
      components: none,
      weights: zeros,
      coverage: "0",
      agreement: "0",
      confidence: "0",
      reason: outcome.reason,
      sources,
    };
  }
  const v = outcome.value;
  const opt = (d: InstanceType<typeof D> | null) => (d === null ? null : wire(d));
  return {
    tMs,
    version: v.version,
    rate: wire(v.rate),
    base: opt(v.base),
    deriv: opt(v.deriv),
    fallback: v.fallback,
    components: Object.fromEntries(
      RATE_CLASSES.map((c) => [c, opt(v.components[c])]),
    ) as Snapshot["components"],
    weights: Object.fromEntries(
      RATE_CLASSES.map((c) => [c, wire(v.classWeightsEffective[c])]),
    ) as Snapshot["weights"],
    coverage: wire(v.coverage),
    agreement: wire(v.agreement),
    confidence: wire(v.confidence),
    reason: null,
    sources,
  };
}

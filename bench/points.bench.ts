import { DEFAULT_BUILDERS } from "../src/services/points/config.ts";
import { BTCSWP_RULES, type ScoringFill, scoreWallet } from "../src/services/points/scoring.ts";
import { startPoints } from "../src/services/points/server.ts";
import type { DayFiles, FillSource } from "../src/services/points/service.ts";
import { type BuilderFillRow, builderFillTime } from "../src/sim/server/builder-fills-file.ts";
import { type BenchReporter, percentile } from "./harness.ts";

/** Fills of one wallet over a month: mixed roles, some out of band, some without builder or mark. */
function syntheticFills(n: number): ScoringFill[] {
  const start = Date.UTC(2026, 0, 1);
  const step = Math.floor((30 * 86_400_000) / n);
  const fills: ScoringFill[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const mark = 75_000 + (i % 997);
    fills[i] = {
      time: start + i * step,
      px: String(mark + (i % 41) - 20),
      sz: `0.0${(i % 9) + 1}`,
      crossed: i % 3 === 0,
      mark: i % 50 === 7 ? null : `${mark}.482139`,
      attribution: i % 20 === 3 ? null : i % 10 === 1 ? "provisional" : "confirmed",
    };
  }
  return fills;
}

export default async function (r: BenchReporter): Promise<void> {
  const fills = syntheticFills(200_000);
  scoreWallet(BTCSWP_RULES, fills.slice(0, 20_000)); // warm the JIT
  let best = 0;
  for (let round = 0; round < 5; round++) {
    const t0 = performance.now();
    scoreWallet(BTCSWP_RULES, fills);
    best = Math.max(best, fills.length / ((performance.now() - t0) / 1000));
  }
  r.figure({
    name: "points scoring throughput (best of 5)",
    value: best,
    unit: "fills/s",
    target: { op: ">=", value: 1_000_000 },
  });
  await batchLatency(r);
}

const WALLETS = 100;
const FILLS_PER_WALLET = 300;
const DAY0 = Date.UTC(2026, 6, 1);

/** Every wallet: 300 BTCSWP fills over three days, half attributed by the Nunchi day file. */
function walletFills(w: number) {
  return Array.from({ length: FILLS_PER_WALLET }, (_, i) => ({
    tid: i + 1,
    time: DAY0 + i * 800_000 + w * 1_000,
    coin: "yex:BTCSWP",
    side: (i % 2 ? "A" : "B") as "A" | "B",
    px: String(75_000 + ((i * 7 + w) % 300) - 150),
    sz: `0.0${(i % 9) + 1}`,
    crossed: i % 3 === 0,
  }));
}

/** POST /points/market-addresses with 100 wallets, nothing cached: p99 over 20 requests. */
async function batchLatency(r: BenchReporter): Promise<void> {
  const addresses = Array.from({ length: WALLETS }, (_, w) => `0x${(w + 1).toString(16).padStart(40, "0")}`);
  const byWallet = new Map(addresses.map((a, w) => [a, walletFills(w)]));
  const nunchi = DEFAULT_BUILDERS[0]!.address.toLowerCase();
  // Like BuilderFiles: a published day is parsed once and kept.
  const published = new Map<string, Map<string, BuilderFillRow[]>>();
  const files: DayFiles = {
    async day(builder, day) {
      if (builder.toLowerCase() !== nunchi) return null;
      const kept = published.get(day);
      if (kept) return kept;
      const index = new Map<string, BuilderFillRow[]>();
      published.set(day, index);
      for (const [user, fills] of byWallet) {
        const rows = fills
          .filter((f, i) => i % 2 === 0 && builderFillTime(f.time).slice(0, 10).replaceAll("-", "") === day)
          .map((f) => ({
            time: builderFillTime(f.time),
            user,
            coin: f.coin,
            side: f.side === "B" ? ("Bid" as const) : ("Ask" as const),
            px: f.px,
            sz: f.sz,
            crossed: f.crossed,
            special_trade_type: "Na",
            tif: "Gtc",
            is_trigger: false,
            counterparty: user,
            closed_pnl: "0",
            twap_id: "0",
            builder_fee: "0.1",
          }));
        index.set(user, rows);
      }
      return index;
    },
  };
  const fills: FillSource = {
    async now() {
      return DAY0 + 10 * 86_400_000;
    },
    async fills(user, startMs) {
      return (byWallet.get(user) ?? []).filter((f) => f.time >= startMs);
    },
    async maxBuilderFee() {
      return 0;
    },
  };
  const points = await startPoints(
    {
      port: 0,
      host: "127.0.0.1",
      dbPath: ":memory:",
      coin: "yex:BTCSWP",
      market: "BTCSWP",
      rules: BTCSWP_RULES,
      builders: [...DEFAULT_BUILDERS],
      statsUrl: "http://127.0.0.1:9",
      statsNetwork: "Testnet",
      missingFileRetryMs: 300_000,
      programStartMs: 0,
      markToleranceMs: 60_000,
      feedUrl: "http://127.0.0.1:9",
      cacheMs: 0,
      followMs: 0,
      provisionalDays: 1,
    },
    { fills, files, log: () => undefined },
  );
  try {
    const marks = [];
    for (let t = DAY0 - 60_000; t < DAY0 + 4 * 86_400_000; t += 30_000)
      marks.push({ ts: t, px: "75000.000000" });
    await points.store.addMarks(marks);
    const body = JSON.stringify({ addresses });
    const post = async () => {
      const t0 = performance.now();
      const res = await fetch(`${points.url}/points/market-addresses`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
      await res.json();
      if (!res.ok) throw new Error(`batch answered ${res.status}`);
      return performance.now() - t0;
    };
    await post();
    const samples: number[] = [];
    for (let i = 0; i < 20; i++) samples.push(await post());
    r.figure({
      name: `points batch of ${WALLETS} wallets × ${FILLS_PER_WALLET} fills, uncached p99`,
      value: percentile(samples, 99),
      unit: "ms",
    });
  } finally {
    await points.close();
  }
}

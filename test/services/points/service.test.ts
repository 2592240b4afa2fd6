import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningFeeds, startFeeds } from "../../../src/services/feeds/server.ts";
import type { FundingSource } from "../../../src/services/feeds/source.ts";
import { DEFAULT_BUILDERS, type PointsConfig } from "../../../src/services/points/config.ts";
import type { SourceFill } from "../../../src/services/points/fill-history.ts";
import { MarkRecorder } from "../../../src/services/points/marks.ts";
import { BTCSWP_RULES } from "../../../src/services/points/scoring.ts";
import { startPoints } from "../../../src/services/points/server.ts";
import type { DayFiles, FillSource, WalletPoints } from "../../../src/services/points/service.ts";
import { type MarkLookup, SqlitePointsStore } from "../../../src/services/points/store.ts";
import { type BuilderFillRow, builderFillTime } from "../../../src/sim/server/builder-fills-file.ts";
import { usePostgres } from "../../support/postgres.ts";
import { type PointsDeployment, startPointsReplicas } from "./replicas.ts";

const T0 = Date.UTC(2026, 6, 1, 12);
const WALLET = "0x00000000000000000000000000000000000000a1";
const OTHER = "0x00000000000000000000000000000000000000b2";
const NUNCHI = DEFAULT_BUILDERS[0]!.address;

/** The BTCSWP feed on a scripted exchange: zero excess, so the mark stays 75000.000000. */
class FlatFunding implements FundingSource {
  clock = T0 + 60_000;
  async now() {
    return this.clock;
  }
  async history() {
    return [];
  }
  async predicted() {
    return "0.0000029";
  }
}

type Fill = SourceFill;
const fills: Record<string, Fill[]> = {
  [WALLET]: [
    { tid: 1, time: T0 + 120_000, coin: "yex:BTCSWP", side: "B", px: "75000", sz: "0.02", crossed: false }, // $1500 maker → 4.5
    { tid: 2, time: T0 + 150_000, coin: "yex:BTCSWP", side: "A", px: "75100", sz: "0.01", crossed: true }, // $751 taker, 13 bps → 1.68975
    { tid: 3, time: T0 + 180_000, coin: "yex:BTCSWP", side: "B", px: "75200", sz: "0.01", crossed: false }, // 26.7 bps: out_of_band
    { tid: 4, time: T0 + 200_000, coin: "yex:BTCSWP", side: "B", px: "75000", sz: "0.03", crossed: false }, // not in any file: no_builder
    {
      tid: 5,
      time: T0 + 2 * 3_600_000,
      coin: "yex:BTCSWP",
      side: "B",
      px: "75000",
      sz: "0.01",
      crossed: false,
    }, // no mark then
    { tid: 6, time: T0 + 130_000, coin: "yex:VXX", side: "B", px: "45", sz: "10", crossed: false }, // another market: ignored
  ],
  [OTHER]: [],
};
const attributed = [0, 1, 2, 4].map((i) => fills[WALLET]![i]!);

function fileRow(f: Fill, user: string): BuilderFillRow {
  return {
    time: builderFillTime(f.time),
    user,
    coin: f.coin,
    side: f.side === "B" ? "Bid" : "Ask",
    px: f.px,
    sz: f.sz,
    crossed: f.crossed,
    special_trade_type: "Na",
    tif: "Gtc",
    is_trigger: false,
    counterparty: OTHER,
    closed_pnl: "0",
    twap_id: "0",
    builder_fee: "0.1",
  };
}

let fillCalls = 0;
const fillSource: FillSource = {
  async now() {
    return T0 + 5 * 86_400_000;
  },
  async fills(user) {
    fillCalls++;
    await new Promise((r) => setTimeout(r, 50));
    return fills[user] ?? [];
  },
  async maxBuilderFee() {
    return 0;
  },
};
const files: DayFiles = {
  async day(builder, day) {
    if (builder !== NUNCHI || day !== "20260701") return null;
    return new Map([[WALLET, attributed.map((f) => fileRow(f, WALLET))]]);
  },
};

let feeds: RunningFeeds;
let points: PointsDeployment;
const funding = new FlatFunding();

function config(feedUrl: string): PointsConfig {
  return {
    port: 0,
    host: "127.0.0.1",
    dbPath: ":memory:",
    coin: "yex:BTCSWP",
    market: "BTCSWP",
    rules: BTCSWP_RULES,
    builders: [...DEFAULT_BUILDERS],
    statsUrl: "http://127.0.0.1:9/unused",
    statsNetwork: "Testnet",
    missingFileRetryMs: 0,
    programStartMs: 0,
    markToleranceMs: 60_000,
    feedUrl,
    cacheMs: 60_000,
    followMs: 0,
    provisionalDays: 1,
  };
}

async function until(cond: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 200 && !(await cond()); i++) await new Promise((r) => setTimeout(r, 25));
  if (!(await cond())) throw new Error(`timed out waiting for ${what}`);
}

const markAt = async (store: MarkLookup, t: number, toleranceMs: number) =>
  (await store.marksAt([t], toleranceMs))[0];

const postgres = usePostgres();

/** The same acceptance tests, against one process on SQLite and against two replicas on Postgres. */
const deployments: [
  string,
  (cfg: PointsConfig, deps: Parameters<typeof startPoints>[1]) => Promise<PointsDeployment>,
][] = [
  ["one process on SQLite", (cfg, deps) => startPoints(cfg, deps)],
  [
    "two replicas on Postgres behind a round-robin balancer",
    async (cfg, deps) =>
      startPointsReplicas({ ...cfg, dbPath: "", databaseUrl: await postgres.current.freshDatabase() }, deps),
  ],
];

describe.each(deployments)("%s", (_name, deploy) => {
  beforeAll(async () => {
    funding.clock = T0 + 60_000; // each deployment starts its feed afresh
    feeds = await startFeeds({
      source: funding,
      dbPath: ":memory:",
      feeds: ["btcswp"],
      basePort: 0,
      proxy: false,
      pollMs: 3_600_000,
      inceptionMs: T0,
    });
    const btc = feeds.engines[0]!;
    // Ticks every 30 s of exchange time (unchanged price, published on max silence) for 5 minutes.
    for (let t = 90_000; t <= 300_000; t += 30_000) {
      funding.clock = T0 + t;
      await btc.poll();
    }
    points = await deploy(config(feeds.origins.btcswp!), {
      fills: fillSource,
      files,
      log: () => undefined,
    });
    await until(async () => (await points.store.lastMarkTs()) === T0 + 300_000, "the mark backfill");
  });
  afterAll(async () => {
    await points?.close();
    await feeds?.close();
  });

  describe("points API", () => {
    it("GET /points/market-address/:wallet scores the wallet's BTCSWP fills", async () => {
      const res = await fetch(`${points.url}/points/market-address/${WALLET}`);
      expect(res.status).toBe(200);
      const body = (await res.json()) as WalletPoints;
      expect(body).toMatchObject({
        address: WALLET,
        market: "BTCSWP",
        total_points: "6.18975",
        eligible_volume_usd: "2251",
        provisional_points: "0",
        fills_total: 5,
        fills_eligible: 2,
        excluded: { out_of_band: 1, no_builder: 1, capped: 0, no_mark: 1 },
        by_day: [
          { date: "2026-07-01", points: "6.18975", eligible_volume_usd: "2251", capped_volume_usd: "0" },
        ],
      });
      expect(body.as_of).toBe(new Date(T0 + 5 * 86_400_000).toISOString());
    });

    it("?fills=true lists each scored fill with its mark, attribution and outcome", async () => {
      const body = (await (
        await fetch(`${points.url}/points/market-address/${WALLET}?fills=true`)
      ).json()) as {
        fills: {
          points: string;
          excluded: string | null;
          attribution: string | null;
          mark: string | null;
          role: string;
        }[];
      };
      expect(body.fills.map((f) => [f.role, f.points, f.excluded, f.attribution, f.mark])).toEqual([
        ["maker", "4.5", null, "confirmed", "75000.000000"],
        ["taker", "1.68975", null, "confirmed", "75000.000000"],
        ["maker", "0", "out_of_band", "confirmed", "75000.000000"],
        ["maker", "0", "no_builder", null, "75000.000000"],
        ["maker", "0", "no_mark", "confirmed", null],
      ]);
      const plain = (await (await fetch(`${points.url}/points/market-address/${WALLET}`)).json()) as Record<
        string,
        unknown
      >;
      expect(plain.fills).toBeUndefined();
    });

    it("a wallet without fills scores zero", async () => {
      const body = (await (
        await fetch(`${points.url}/points/market-address/${OTHER}`)
      ).json()) as WalletPoints;
      expect(body.total_points).toBe("0");
      expect(body.by_day).toEqual([]);
    });

    it("an invalid wallet is a 400 JSON error", async () => {
      for (const bad of ["0x123", "abc", `${WALLET}00`, "0xZZ00000000000000000000000000000000000000"]) {
        const res = await fetch(`${points.url}/points/market-address/${bad}`);
        expect(res.status).toBe(400);
        expect(((await res.json()) as { error: string }).error).toMatch(/Invalid wallet/);
      }
    });

    it("POST /points/market-addresses scores each wallet, at most 100", async () => {
      const post = (body: unknown) =>
        fetch(`${points.url}/points/market-addresses`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        });
      const ok = await post({ addresses: [WALLET, OTHER] });
      expect(ok.status).toBe(200);
      const { wallets } = (await ok.json()) as { wallets: WalletPoints[] };
      expect(wallets.map((w) => [w.address, w.total_points])).toEqual([
        [WALLET, "6.18975"],
        [OTHER, "0"],
      ]);
      expect((await post({ addresses: Array.from({ length: 101 }, () => OTHER) })).status).toBe(400);
      expect((await post({ addresses: Array.from({ length: 100 }, () => OTHER) })).status).toBe(200);
      expect((await post({ addresses: [WALLET, "nope"] })).status).toBe(400);
      expect((await post({ addresses: [] })).status).toBe(400);
      expect((await post({ wallets: [WALLET] })).status).toBe(400);
    });

    it("concurrent requests for one wallet share one computation, and results are cached", async () => {
      const fresh = "0x00000000000000000000000000000000000000c3";
      const before = fillCalls;
      await Promise.all(
        Array.from({ length: 5 }, () => fetch(`${points.url}/points/market-address/${fresh}`)),
      );
      await fetch(`${points.url}/points/market-address/${fresh.toUpperCase().replace("0X", "0x")}`);
      expect(fillCalls - before).toBe(1);
    });

    it("GET /points/market-config describes the rules", async () => {
      const cfg = (await (await fetch(`${points.url}/points/market-config`)).json()) as Record<
        string,
        unknown
      >;
      expect(cfg).toMatchObject({
        market: "BTCSWP",
        market_multiplier: 1.5,
        role_multipliers: { maker: 2, taker: 1.5 },
        oracle_band: { bps: 25, edge_inclusive: true, mark_tolerance_ms: 60_000 },
        daily_cap: { eligible_volume_usd: 50_000 },
      });
      expect((cfg.eligible_builders as { address: string }[]).map((b) => b.address)).toEqual([
        "0x0d1db1c800184a203915757bbbc0ee3a8e12ffb0",
        "0x1924b8561eef20e70ede628a296175d358be80e5",
        "0x999a4b5f268a8fbf33736feff360d462ad248dbf",
      ]);
    });

    it("serves the points page", async () => {
      const res = await fetch(`${points.url}/points/`);
      expect(res.headers.get("content-type")).toMatch(/text\/html/);
      expect(await res.text()).toContain("/points/points.js");
      expect((await fetch(`${points.url}/points/points.js`)).status).toBe(200);
    });
  });

  describe("oracle marks", () => {
    it("a fill is marked with the last tick at or before it, within the tolerance", async () => {
      const m = points.store;
      expect(await markAt(m, T0 + 95_000, 60_000)).toBe("75000.000000");
      expect(await markAt(m, T0 + 300_000 + 60_000, 60_000)).toBe("75000.000000");
      expect(await markAt(m, T0 + 300_000 + 60_001, 60_000)).toBeNull();
      expect(await markAt(m, T0, 60_000)).toBeNull();
    });

    it("live ticks are stored, and a gap is backfilled from the feed history on reconnect", async () => {
      const btc = feeds.engines[0]!;
      funding.clock = T0 + 330_000;
      await btc.poll();
      await until(async () => (await points.store.lastMarkTs()) === T0 + 330_000, "the live tick");

      const store = new SqlitePointsStore(":memory:");
      await store.addMarks([{ ts: T0 + 90_000, px: "75000.000000" }]);
      const recorder = new MarkRecorder(store, { feedUrl: feeds.origins.btcswp!, fromMs: 0 });
      recorder.start();
      await until(async () => (await store.lastMarkTs()) === T0 + 330_000, "the live tick");
      await recorder.settled();
      expect(await markAt(store, T0 + 200_000, 60_000)).toBe("75000.000000");
      recorder.close();
      await store.close();
    });

    it("reads the feed through the proxy as well", async () => {
      const viaProxy = await startFeeds({
        dbPath: ":memory:",
        feeds: [],
        basePort: 0,
        proxy: true,
        upstreams: { btcswp: feeds.origins.btcswp! },
      });
      const store = new SqlitePointsStore(":memory:");
      const recorder = new MarkRecorder(store, {
        feedUrl: `${viaProxy.proxyUrl}/api/feeds/btcswp`,
        fromMs: 0,
      });
      recorder.start();
      await until(async () => (await store.lastMarkTs()) === T0 + 330_000, "the tick via the proxy");
      await recorder.settled();
      expect(await markAt(store, T0 + 100_000, 60_000)).toBe("75000.000000");
      recorder.close();
      await store.close();
      await viaProxy.close();
    });
  });
});

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Engine } from "../src/engine/engine.ts";
import { HlGateway, type HlMarketData } from "../src/engine/hl-adapter.ts";
import { PaperGateway } from "../src/engine/paper-gateway.ts";
import { DEFAULT_RISK_LIMITS } from "../src/engine/risk.ts";
import type { HlClient } from "../src/exchange/client.ts";
import type { Fill } from "../src/exchange/info.ts";
import type { UserFillsWsEvent } from "../src/exchange/ws.ts";
import { defaultParams, findStrategy } from "../src/strategies/catalog.ts";
import { FakeMarket } from "../test/engine/fake-market.ts";
import { type BenchReporter, percentile } from "./harness.ts";

const UNRELATED = 10_000;
const TICKS = 200;
/** Other coins' fills pushed on the stream each tick while the run goes on. */
const STREAMED_PER_TICK = 50;

/**
 * `hl run` on an account that also holds 10,000 fills of another coin, all newer than the run's start,
 * and keeps trading it (50 more fills a tick on the userFills stream): the per-tick cost of reading
 * fills (our gateway over a client and stream stub that answer from memory, so the figure is our own
 * work per tick: REST reads, fills they return, and the tick's wall time).
 */
export default async function (r: BenchReporter): Promise<void> {
  const start = 1_800_000_000_000;
  const other: Fill[] = Array.from(
    { length: UNRELATED },
    (_, i) =>
      ({
        coin: "BTC",
        px: "60000",
        sz: "0.001",
        side: "B",
        time: start + 1 + i,
        oid: i + 1,
        tid: i + 1,
        fee: "0.01",
      }) as unknown as Fill,
  );
  let scanned = 0;
  let restReads = 0;
  const perTick: number[] = [];
  const client = {
    userFillsSince: async ({ startTime }: { startTime: number }) => {
      restReads++;
      const out = other.filter((f) => f.time >= startTime);
      scanned += out.length;
      return out;
    },
    openOrders: async () => [],
    clearinghouseState: async () => ({ assetPositions: [] }),
    orders: async (reqs: unknown[]) => reqs.map(() => ({ status: "error", message: "bench: not placed" })),
    cancelMany: async (reqs: unknown[]) => reqs.map(() => undefined),
  } as unknown as HlClient;
  const market = {
    market: async () => ({ coin: "ETH", dex: "", instrument: "ETH-PERP", szDecimals: 4 }),
  } as unknown as HlMarketData;
  let push: ((e: UserFillsWsEvent) => void) | undefined;
  const stream = {
    userFills: async (_user: unknown, listener: (e: UserFillsWsEvent) => void) => {
      push = listener;
      queueMicrotask(() =>
        listener({ isSnapshot: true, user: "0x0", fills: [] } as unknown as UserFillsWsEvent),
      );
      return { unsubscribe: async () => undefined, failureSignal: new AbortController().signal };
    },
    onDisconnect: () => () => undefined,
  };
  let nextTid = UNRELATED + 1;
  const streamOtherFills = () => {
    const fills = Array.from({ length: STREAMED_PER_TICK }, () => ({ ...other[0]!, tid: nextTid++ }));
    push?.({ user: "0x0", fills } as unknown as UserFillsWsEvent);
  };
  const paper = new PaperGateway();
  const strategy = findStrategy("simple_mm")!;
  const dir = mkdtempSync(join(tmpdir(), "hl-bench-fills-"));
  const stamps: number[] = [];
  try {
    const engine = new Engine({
      strategy,
      params: defaultParams(strategy),
      instrument: "ETH-PERP",
      market: paper.watch(new FakeMarket({ seed: 4 })),
      gateway: new HlGateway(client, market, { source: stream, user: "0x0" }),
      dataDir: dir,
      tickMs: 0,
      maxTicks: TICKS,
      resume: false,
      limits: DEFAULT_RISK_LIMITS,
      requoteBps: 2,
      mode: "dry-run",
      network: "bench",
      now: () => start,
      log: (l) => {
        if (l.startsWith("[")) {
          stamps.push(performance.now());
          perTick.push(scanned);
          scanned = 0;
          streamOtherFills();
        }
      },
    });
    await engine.run();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const ticks = stamps.slice(1).map((t, i) => t - stamps[i]!);
  r.figure({
    name: "hl run tick, account with 10,000 unrelated fills: p50",
    value: percentile(ticks, 50),
    unit: "ms",
  });
  r.figure({
    name: "hl run: unrelated fills read per tick after the first (p99)",
    value: percentile(perTick.slice(1), 99),
    unit: "fills",
    target: { op: "<=", value: 1 },
  });
  r.figure({
    name: "hl run: REST fill reads per tick (userFills stream, REST backstop)",
    value: restReads / TICKS,
    unit: "reads",
    target: { op: "<=", value: 0.1 },
  });
}

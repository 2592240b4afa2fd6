import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command } from "commander";
import { afterAll, describe, expect, it } from "vitest";
import { register } from "../../../src/cli/sim.ts";
import { UserError } from "../../../src/core/errors.ts";
import { writeBooks, writeCandles, writeFunding } from "../../../src/market/index.ts";
import type { RecordedCandle, RecordedMarket } from "../../../src/sim/replay/recorded.ts";
import { type SimWorld, startSimWorld } from "../../../src/sim/world.ts";

const START = Date.UTC(2026, 10, 20, 6, 0);
const MIN = 60_000;
/** A crawling clock: wall time barely moves it, so only advance() does. */
const FROZEN = 1e-9;
const open: SimWorld[] = [];
afterAll(() => Promise.all(open.map((w) => w.close())));

async function world(opts: Parameters<typeof startSimWorld>[0]): Promise<SimWorld> {
  const w = await startSimWorld(opts);
  open.push(w);
  return w;
}

/** 2 h of ETH minutes around START: a zig-zag no model would draw, on ETH's tick grid. */
function ethCandles(): RecordedCandle[] {
  const out: RecordedCandle[] = [];
  for (let i = -60; i < 60; i++) {
    const c = 3000 + (i % 7) * 2.5 + Math.floor(i / 10);
    const o = c - 1.5;
    out.push({ t: START + i * MIN, o, h: c + 3, l: o - 2, c, v: 1.25 + (i & 3), n: 3 + (i & 1) });
  }
  return out;
}

type Book = { levels: { px: string; sz: string }[][]; time: number };
type WireCandle = { t: number; o: string; h: string; l: string; c: string; v: string; n: number };

describe("sim world replaying a recording", () => {
  it("shows the recorded candles up to the clock and never the minute in progress", async () => {
    const candles = ethCandles();
    const eth: RecordedMarket = { coin: "ETH", candles, books: [], funding: [] };
    const w = await world({ speed: FROZEN, replay: { fromMs: START, markets: [eth] } });
    expect(w.clock.now()).toBe(START);
    expect(w.replay).toEqual({ coins: ["ETH"], fromMs: START, endMs: START + 60 * MIN });

    const snap = () =>
      w.venue.info({
        type: "candleSnapshot",
        req: { coin: "ETH", interval: "1m", startTime: START - 30 * MIN },
      }) as WireCandle[];
    // The past: the recorded minutes before the start, as recorded.
    const before = snap().filter((k) => k.t < START);
    expect(before).toHaveLength(30);
    const rec = candles.find((k) => k.t === START - MIN)!;
    const wire = before.find((k) => k.t === START - MIN)!;
    expect([wire.o, wire.h, wire.l, wire.c].map(Number)).toEqual([rec.o, rec.h, rec.l, rec.c]);

    w.advance(10 * MIN + 30_000);
    const now = snap();
    for (let i = 0; i < 10; i++) {
      const r = candles.find((k) => k.t === START + i * MIN)!;
      const k = now.find((x) => x.t === r.t)!;
      expect([k.o, k.h, k.l, k.c].map(Number), `minute ${i}`).toEqual([r.o, r.h, r.l, r.c]);
      expect(Number(k.v)).toBeCloseTo(r.v, 6);
      expect(k.n).toBe(r.n);
    }
    // Minute 10 is in progress at 10:30: its recorded figures are not known yet.
    const live = now.find((x) => x.t === START + 10 * MIN)!;
    const r10 = candles.find((k) => k.t === START + 10 * MIN)!;
    const last = candles.find((k) => k.t === START + 9 * MIN)!;
    expect([live.o, live.h, live.l, live.c].map(Number)).toEqual([last.c, last.c, last.c, last.c]);
    expect(live.n).toBe(0);
    expect(now.at(-1)).toBe(live);
    // The house quotes around the last closed minute's close, as tight as the grid allows.
    const book = w.venue.info({ type: "l2Book", coin: "ETH" }) as Book;
    // One tick (0.1 at ETH's price) each side: the mid is the recorded close.
    expect([Number(book.levels[0]![0]!.px), Number(book.levels[1]![0]!.px)]).toEqual([
      last.c - 0.1,
      last.c + 0.1,
    ]);
    expect(book.levels[0]!.length).toBeGreaterThanOrEqual(5);
    // Only the replayed coin is quoted; the others have no book.
    const btc = w.venue.info({ type: "l2Book", coin: "BTC" }) as Book;
    expect(btc.levels[0]).toHaveLength(0);
    // Coarser intervals are built from the recorded minutes: 5m bucket [0, 5) of the recording.
    const five = (
      w.venue.info({
        type: "candleSnapshot",
        req: { coin: "ETH", interval: "5m", startTime: START },
      }) as WireCandle[]
    ).find((x) => x.t === START)!;
    const m5 = candles.filter((k) => k.t >= START && k.t < START + 5 * MIN);
    expect([five.o, five.h, five.l, five.c].map(Number)).toEqual([
      m5[0]!.o,
      Math.max(...m5.map((k) => k.h)),
      Math.min(...m5.map((k) => k.l)),
      m5[4]!.c,
    ]);
    // A trade in the replaying world does not print into its candles: they are the recording's.
    const user = "0x00000000000000000000000000000000000000aa";
    w.venue.deposit(user, "100000");
    const ask = (w.venue.info({ type: "l2Book", coin: "ETH" }) as Book).levels[1]![0]!.px;
    const market = w.venue.markets().find((m) => m.coin === "ETH")!;
    const taken = w.venue.exchange(
      {
        type: "order",
        orders: [{ a: market.asset, b: true, p: ask, s: "0.5", r: false, t: { limit: { tif: "Ioc" } } }],
        grouping: "na",
      },
      user,
      Date.now(),
    );
    expect(JSON.stringify(taken)).toContain("filled");
    w.advance(60_000);
    const after = snap().find((x) => x.t === START + 10 * MIN)!;
    expect([after.o, after.h, after.l, after.c].map(Number)).toEqual([r10.o, r10.h, r10.l, r10.c]);
  });

  it("posts recorded books as they were and refuses admin price moves", async () => {
    const books = [0, 1, 2].map((i) => ({
      time: START + i * 20_000 + 5_000,
      bids: [
        { px: `${2990 + i}`, sz: "1.5" },
        { px: `${2989 + i}`, sz: "4" },
      ],
      asks: [
        { px: `${2992 + i}`, sz: "2" },
        { px: `${2994 + i}`, sz: "0.25" },
      ],
    }));
    const eth: RecordedMarket = { coin: "ETH", candles: ethCandles(), books, funding: [] };
    const w = await world({ speed: FROZEN, replay: { fromMs: START, markets: [eth] } });
    for (let i = 0; i < 3; i++) {
      w.advance(i === 0 ? 5_000 : 20_000);
      const book = w.venue.info({ type: "l2Book", coin: "ETH" }) as Book;
      expect(book.levels.map((side) => side.map((l) => [l.px, l.sz]))).toEqual([
        books[i]!.bids.map((l) => [l.px, l.sz]),
        books[i]!.asks.map((l) => [l.px, l.sz]),
      ]);
    }
    const res = await fetch(`${w.url}/sim/price`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ coin: "ETH", px: "100" }),
    });
    expect(res.status).toBe(409);
    expect(((await res.json()) as { error: string }).error).toMatch(/recording/);
    const scenario = await fetch(`${w.url}/sim/scenario`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ coin: "ETH", driftPerHour: 0.1, durationMs: 60_000 }),
    });
    expect(scenario.status).toBe(409);
  });

  it("reads the recording from the market-data store", async () => {
    const root = mkdtempSync(join(tmpdir(), "hl-replay-store-"));
    const target = { root, network: "mainnet", coin: "ETH" };
    const candles = ethCandles();
    await writeCandles(
      { ...target, interval: "1m" },
      candles.map((k) => ({
        t: k.t,
        T: k.t + MIN - 1,
        o: String(k.o),
        h: String(k.h),
        l: String(k.l),
        c: String(k.c),
        v: String(k.v),
        n: k.n,
      })),
    );
    await writeBooks(target, [
      {
        t: START + 90_000,
        bids: [["2999.5", "3"]],
        asks: [["3000.5", "2.5"]],
      },
    ]);
    await writeFunding(target, [{ t: START - 3_600_000, rate: "0.0000125", premium: "0.0001" }]);
    const w = await world({
      speed: FROZEN,
      replay: { root, network: "mainnet", coins: ["ETH"], fromMs: START, toMs: START + 30 * MIN },
    });
    expect(w.replay).toEqual({ coins: ["ETH"], fromMs: START, endMs: START + 30 * MIN });
    w.advance(2 * MIN);
    const book = w.venue.info({ type: "l2Book", coin: "ETH" }) as Book;
    expect(book.levels.map((side) => side.map((l) => [l.px, l.sz]))).toEqual([
      [["2999.5", "3"]],
      [["3000.5", "2.5"]],
    ]);
    const k = (
      w.venue.info({
        type: "candleSnapshot",
        req: { coin: "ETH", interval: "1m", startTime: START },
      }) as WireCandle[]
    ).find((x) => x.t === START + MIN)!;
    const r = candles.find((x) => x.t === START + MIN)!;
    expect(Number(k.c)).toBe(r.c);
    const funding = w.venue.info({
      type: "fundingHistory",
      coin: "ETH",
      startTime: START - 2 * 3_600_000,
    }) as {
      premium: string;
    }[];
    expect(funding.map((f) => f.premium)).toEqual(["0.0001"]);
  });

  it("hl sim serve --replay refuses incomplete options with one readable line", async () => {
    const serve = (...args: string[]) => {
      const program = new Command("hl").exitOverride();
      register(program);
      return program.parseAsync(["node", "hl", "sim", "serve", "--port", "0", ...args]);
    };
    await expect(serve("--replay", "ETH")).rejects.toThrow(/--replay needs --from and --to/);
    await expect(serve("--from", "2026-01-01")).rejects.toThrow(/--from and --to go with --replay/);
    await expect(
      serve("--replay", "ETH", "--from", "2026-01-02", "--to", "2026-01-01", "--data-dir", tmpdir()),
    ).rejects.toThrow(/--to must be after --from/);
    const empty = mkdtempSync(join(tmpdir(), "hl-replay-empty-"));
    const none = serve("--replay", "ETH", "--from", "2026-01-01", "--to", "2026-01-02", "--data-dir", empty);
    await expect(none).rejects.toBeInstanceOf(UserError);
    await expect(none).rejects.toThrow(/--replay: no recorded candles or books of ETH on mainnet/);
  });

  it("refuses a coin the sim does not list", async () => {
    await expect(
      startSimWorld({
        speed: FROZEN,
        replay: { fromMs: START, markets: [{ coin: "NOPE", candles: ethCandles(), books: [], funding: [] }] },
      }),
    ).rejects.toThrow(/no market NOPE/);
  });
});

import { spawn } from "node:child_process";
import { once } from "node:events";
import { Command } from "commander";
import { afterAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { register } from "../../../src/cli/sim.ts";
import { UserError } from "../../../src/core/errors.ts";
import { DEFAULT_MARKETS } from "../../../src/sim/venue/markets.ts";
import { type SimWorld, startSimWorld } from "../../../src/sim/world.ts";

const START = Date.UTC(2026, 10, 20, 6, 0);
const HOUR = 3_600_000;
/** A crawling clock: wall time barely moves it, so only advance() does and runs are reproducible. */
const FROZEN = 1e-9;
const open: SimWorld[] = [];
afterAll(() => Promise.all(open.map((w) => w.close())));

async function world(opts: Parameters<typeof startSimWorld>[0]): Promise<SimWorld> {
  const w = await startSimWorld(opts);
  open.push(w);
  return w;
}

type Book = { levels: { px: string; sz: string }[][] };

describe("sim world", () => {
  it("same seed ⇒ same market: mids and funding replay exactly", async () => {
    const snapshot = async (seed: number) => {
      const w = await world({ seed, speed: FROZEN, startMs: START, liveCoins: ["BTC", "ETH", "SOL"] });
      w.advance(HOUR);
      return {
        mids: w.venue.info({ type: "allMids" }),
        // After the backfilled past (settled up to START), the one hour that passed.
        funding: w.venue.info({ type: "fundingHistory", coin: "ETH", startTime: START + 1 }),
        book: w.venue.info({ type: "l2Book", coin: "SOL" }),
      };
    };
    const a = await snapshot(21);
    const b = await snapshot(21);
    const c = await snapshot(22);
    expect(b).toEqual(a);
    expect(c.mids).not.toEqual(a.mids);
    expect(a.funding).toHaveLength(1);
  });

  it("house makers keep a deep two-sided book (20 levels quoted a side) on every listed market through a quarter hour of sim time", async () => {
    const w = await world({ seed: 8, speed: FROZEN, startMs: START });
    const delisted = new Set(DEFAULT_MARKETS.filter((m) => m.isDelisted).map((m) => m.name));
    const coins = w.venue
      .markets()
      .map((m) => m.coin)
      .filter((c) => !delisted.has(c));
    expect(coins.length).toBeGreaterThanOrEqual(150);
    for (let h = 0; h < 3; h++) {
      w.advance(5 * 60_000);
      for (const coin of coins) {
        const book = w.venue.info({ type: "l2Book", coin }) as Book;
        const [bids, asks] = book.levels;
        expect(bids!.length, coin).toBeGreaterThanOrEqual(15);
        expect(asks!.length, coin).toBeGreaterThanOrEqual(15);
        expect(Number(bids![0]!.px), coin).toBeLessThan(Number(asks![0]!.px));
      }
    }
    const candles = w.venue.info({
      type: "candleSnapshot",
      req: { coin: "BTC", interval: "5m", startTime: START },
    }) as {
      v: string;
    }[];
    expect(candles.length).toBeGreaterThanOrEqual(3);
    expect(Number(candles[0]!.v)).toBeGreaterThan(0);
  });

  it("a mover given at start trends its coin and leaves the others alone", async () => {
    const liveCoins = ["BTC", "HYPE"];
    const plain = await world({ seed: 31, speed: FROZEN, startMs: START, liveCoins });
    const moved = await world({
      seed: 31,
      speed: FROZEN,
      startMs: START,
      liveCoins,
      movers: [{ coin: "HYPE", driftPerHour: 0.04, durationMs: 3 * HOUR }],
    });
    plain.advance(3 * HOUR);
    moved.advance(3 * HOUR);
    const mids = (w: SimWorld) => w.venue.info({ type: "allMids" }) as Record<string, string>;
    expect(Number(mids(moved).HYPE) / Number(mids(plain).HYPE)).toBeGreaterThan(1.08);
    const ratioBtc = Number(mids(moved).BTC) / Number(mids(plain).BTC);
    expect(Math.abs(ratioBtc - 1)).toBeLessThan(0.002);
  });

  it("without house makers the books stay empty but prices still move", async () => {
    const w = await world({ seed: 8, speed: FROZEN, startMs: START, houseMakers: false, liveCoins: ["BTC"] });
    const before = (w.venue.info({ type: "metaAndAssetCtxs" }) as [unknown, { oraclePx: string }[]])[1][0]!
      .oraclePx;
    w.advance(HOUR);
    const book = w.venue.info({ type: "l2Book", coin: "BTC" }) as Book;
    expect(book.levels[0]).toEqual([]);
    const after = (w.venue.info({ type: "metaAndAssetCtxs" }) as [unknown, { oraclePx: string }[]])[1][0]!
      .oraclePx;
    expect(after).not.toBe(before);
  });

  it("closes promptly with clients still connected, and refuses a taken port", async () => {
    const w = await startSimWorld({ seed: 1 });
    const ws = new WebSocket(w.wsUrl);
    await once(ws, "open");
    await fetch(`${w.url}/sim/health`);
    await expect(startSimWorld({ port: w.port })).rejects.toMatchObject({ code: "EADDRINUSE" });
    const t = Date.now();
    await Promise.all([w.close(), once(ws, "close")]);
    expect(Date.now() - t).toBeLessThan(2000);
  });
});

describe("hl sim serve", () => {
  it("prints one line, serves, and exits cleanly on SIGINT", async () => {
    const child = spawn(
      process.execPath,
      ["bin/hl.mjs", "sim", "serve", "--port", "0", "--seed", "9", "--speed", "2"],
      {
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    let out = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
    });
    const deadline = Date.now() + 30_000;
    while (!out.includes("\n") && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const m =
      /^sim world listening on (http:\/\/127\.0\.0\.1:\d+) \(seed 9, speed 2, 1200 weight\/min per IP\)\n$/.exec(
        out,
      );
    expect(m, out).not.toBeNull();
    const health = await (await fetch(`${m![1]}/sim/health`)).json();
    expect(health).toMatchObject({ status: "ok" });
    child.kill("SIGINT");
    const [code] = await once(child, "exit");
    expect(code).toBe(0);
  });

  it("names the port and the flag when the port is taken", async () => {
    const w = await world({ seed: 1, liveCoins: ["BTC"] });
    const program = new Command("hl").exitOverride();
    register(program);
    const serve = program.parseAsync(["node", "hl", "sim", "serve", "--port", String(w.port)]);
    await expect(serve).rejects.toBeInstanceOf(UserError);
    await expect(serve).rejects.toThrow(
      `port ${w.port} on 127.0.0.1 is already in use; choose another with --port (or SIM_PORT)`,
    );
  });

  it("refuses bad options with one readable line", async () => {
    const program = new Command("hl").exitOverride();
    register(program);
    await expect(program.parseAsync(["node", "hl", "sim", "serve", "--speed", "fast"])).rejects.toThrow(
      /--speed must be/,
    );
  });
});

import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HlStream } from "../../src/exchange/ws.ts";
import { coinDir, readAssetCtxs, readBooks, readTrades } from "../../src/market/index.ts";
import { type SimWorld, startSimWorld } from "../../src/sim/world.ts";
import { HL_BIN as HL, type HlOutcome, runHl } from "../support/hl-process.ts";

/** `hl data record`, `fetch`, `ls` and `hl sim export` as real processes against a sim world. */

let sim: SimWorld;
let dir: string;

const env = (): NodeJS.ProcessEnv => ({
  ...process.env,
  HL_API_URL: sim.url,
  HL_NETWORK: "paper",
  DATA_DIR: dir,
});

function hl(...args: string[]): Promise<HlOutcome> {
  return runHl(args, env());
}

/** Starts `hl data record` and resolves once it says it is recording. */
function startRecorder(root: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [HL, "data", "record", "ETH", "yex:VXX", "--data-dir", root], {
    env: env(),
  });
  return new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`recorder did not start: ${out}`)), 20_000);
    child.stdout!.on("data", (b: Buffer) => {
      out += b.toString();
      if (out.includes("recording ")) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.stderr!.on("data", (b: Buffer) => {
      out += b.toString();
    });
  });
}

const exited = (child: ChildProcess) =>
  new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "market-e2e-"));
  // Needs the exchange's per-IP weight limit off: a recorder backfilling and tailing markets within seconds spend more than
  // one IP's 1200 a minute. The per-address limit stays on.
  sim = await startSimWorld({ ipWeightLimit: false, seed: 3, historyDays: 1 });
});

afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("hl data record", () => {
  it("killed with SIGKILL, keeps everything received up to a second before the kill; a clean stop compacts into Parquet", async () => {
    const root = join(dir, "rec");
    // A second subscriber sees what the recorder sees, stamped with when it arrived.
    const seen = { books: [] as { t: number; at: number }[], trades: [] as { tid: string; at: number }[] };
    const watcher = new HlStream({ url: sim.wsUrl, isTestnet: true });
    await watcher.l2Book("ETH", (b) => seen.books.push({ t: b.time, at: Date.now() }));
    await watcher.trades("ETH", (ts) => {
      for (const t of ts) seen.trades.push({ tid: String(t.tid), at: Date.now() });
    });
    const first = await startRecorder(root);
    await sleep(3_000);
    const killedAt = Date.now();
    first.kill("SIGKILL");
    await exited(first);
    await watcher.close();

    const q = { root, network: "paper", coin: "ETH", fromMs: 0, toMs: Date.now() + 86_400_000 };
    const books = new Set((await readBooks(q)).map((b) => b.t));
    const trades = new Set((await readTrades(q)).map((t) => t.tid));
    const dueBooks = seen.books.filter((b) => b.at <= killedAt - 1_000 && b.at >= killedAt - 2_500);
    expect(dueBooks.length).toBeGreaterThan(0);
    for (const b of dueBooks)
      expect(books.has(b.t), `book ${b.t} seen ${killedAt - b.at} ms before the kill`).toBe(true);
    for (const t of seen.trades.filter((x) => x.at <= killedAt - 1_000 && x.at >= killedAt - 2_500))
      expect(trades.has(t.tid), `trade ${t.tid}`).toBe(true);
    expect((await readAssetCtxs(q)).length).toBeGreaterThan(0);
    const bookDir = coinDir(root, "paper", "l2book", "ETH");
    expect(readdirSync(bookDir).some((f) => f.endsWith(".journal.jsonl"))).toBe(true);

    // Restarted and stopped cleanly: the journals become Parquet, nothing recorded is lost.
    const second = await startRecorder(root);
    await sleep(500);
    second.kill("SIGTERM");
    expect(await exited(second)).toBe(0);
    expect(readdirSync(bookDir).every((f) => f.endsWith(".parquet"))).toBe(true);
    const after = new Set((await readBooks(q)).map((b) => b.t));
    for (const t of books) expect(after.has(t)).toBe(true);

    const ls = await hl("data", "ls", "--data-dir", root, "--json");
    expect(ls.code, ls.stderr).toBe(0);
    const held = JSON.parse(ls.stdout) as { dataset: string; coin: string; rows: number }[];
    expect(held.find((h) => h.dataset === "l2book" && h.coin === "ETH")?.rows).toBe(after.size);
    expect(held.map((h) => h.coin)).toContain("yex:VXX");
  }, 60_000);
});

describe("hl sim export and hl data fetch", () => {
  it("export writes the paper history; fetch stores candles and funding from the world; bad input is one line", async () => {
    const root = join(dir, "cli");
    const exp = await hl(
      "sim",
      "export",
      "--days",
      "1",
      "--coins",
      "ETH",
      "--to",
      "2026-03-10",
      "--data-dir",
      root,
      "--json",
    );
    expect(exp.code, exp.stderr).toBe(0);
    expect(JSON.parse(exp.stdout).coins).toEqual([
      { coin: "ETH", candles: { "1m": 1440, "5m": 288, "1h": 24 }, funding: 23 },
    ]);
    expect(existsSync(join(coinDir(root, "paper", "candles_1m", "ETH"), "2026-03-09.parquet"))).toBe(true);

    const from = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000 - 6 * 3_600_000).toISOString();
    const fetched = await hl(
      "data",
      "fetch",
      "ETH",
      "yex:VXX",
      "--interval",
      "1h",
      "--from",
      from,
      "--network",
      "paper",
      "--data-dir",
      root,
      "--json",
    );
    expect(fetched.code, fetched.stderr).toBe(0);
    const summary = JSON.parse(fetched.stdout) as {
      coins: { coin: string; candles: { stored: number }; funding: { stored: number } }[];
    };
    expect(summary.coins.map((c) => [c.coin, c.candles.stored, c.funding.stored])).toEqual([
      ["ETH", 6, 7], // 6 closed hours; settlements at each of the 7 hour marks from --from on
      ["yex:VXX", 6, 7],
    ]);

    const bad = await hl("data", "fetch", "ETH", "--from", "yesterday", "--data-dir", root);
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim().split("\n")).toEqual([
      'error: --from must be a date (2026-01-31), an ISO time (2026-01-31T12:00Z) or epoch ms, got "yesterday"',
    ]);
  }, 60_000);
});

import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dec } from "../../src/core/decimal.ts";
import { HlClient, loadOrCreatePaperWallet } from "../../src/exchange/index.ts";
import type { JournalEntry } from "../../src/review/journal-entry.ts";
import { type SimWorld, startSimWorld } from "../../src/sim/world.ts";
import { loadWolfState, type WolfState } from "../../src/wolf/state.ts";
import { readTrades } from "../../src/wolf/trades.ts";
import { call, connectStdio, serverEnv, tempDirs, text as toolText } from "../services/mcp/helpers.ts";

/**
 * `hl wolf run --mock --max-ticks 12 --tick 1` as a real process on a sim world, with WOLF's default
 * config: the sim's markets have a past and real volumes, so the scanner finds entries at once; once a
 * slot is open the test drives its coin through /sim/price (+80 % ROE, then back to +50 %) so the
 * DSL's top tier locks and closes it — between ticks, from the price stream. (The slot opens on the
 * first tick and closes by the second or third: twelve ticks leave room for a loaded machine.)
 */

const HL = join(import.meta.dirname, "../../bin/hl.mjs");
const MAX_TICKS = 12;
const exec = promisify(execFile);

let world: SimWorld;
let dataDir: string;
const dirs = tempDirs("wolf-e2e-mcp");

beforeAll(async () => {
  // Needs the exchange's per-IP weight limit off: a WOLF run's scans and ticks compressed into seconds spend more than
  // one IP's 1200 a minute. The per-address limit stays on.
  world = await startSimWorld({ ipWeightLimit: false, port: 0, seed: 11 });
  dataDir = mkdtempSync(join(tmpdir(), "wolf-e2e-"));
});

afterAll(async () => {
  await world?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  dirs.cleanup();
});

const env = () => ({
  ...process.env,
  DATA_DIR: dataDir,
  HL_API_URL: world.url,
  HL_NETWORK: "",
  HL_PRIVATE_KEY: "",
  WOLF_TICK: "",
  HL_RATE_WEIGHT_PER_MIN: "100000",
});

function readState(): WolfState | undefined {
  try {
    const r = loadWolfState(dataDir);
    return r.kind === "ok" ? r.state : undefined;
  } catch {
    return undefined; // mid-rename
  }
}

async function setPrice(coin: string, px: number): Promise<void> {
  const res = await fetch(`${world.url}/sim/price`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    // Five significant figures written out in full: toPrecision alone gives "1.0543e+5" for BTC, which /sim/price refuses.
    body: JSON.stringify({ coin, px: Number(px.toPrecision(5)).toFixed(12) }),
  });
  expect(res.ok, `${coin} ${px}: ${await res.text()}`).toBe(true);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("hl wolf run on the sim world", () => {
  it("opens a slot, closes it through the DSL, and its files agree with the exchange", async () => {
    const child: ChildProcess = spawn(
      "node",
      [HL, "wolf", "run", "--mock", "--max-ticks", String(MAX_TICKS), "--tick", "1", "--data-dir", dataDir],
      { env: env(), stdio: ["ignore", "pipe", "pipe"] },
    );
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (d) => (stdout += d));
    child.stderr?.on("data", (d) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));

    // Wait for a slot, then push its coin through the top DSL tier and back below the lock.
    let dslClosed = false;
    const deadline = Date.now() + 60_000;
    while (!dslClosed && Date.now() < deadline && child.exitCode === null) {
      const st = readState();
      const slot = st?.slots.find((s) => s.status === "active");
      if (!slot) {
        await sleep(200);
        continue;
      }
      const entry = Number(slot.entry_price);
      const sign = slot.side === "long" ? 1 : -1;
      await setPrice(slot.coin, entry * (1 + (sign * 0.8) / slot.leverage));
      await sleep(1200);
      await setPrice(slot.coin, entry * (1 + (sign * 0.5) / slot.leverage));
      const until = Date.now() + 8000;
      while (Date.now() < until) {
        const now = readState();
        if (
          now?.closed_slots.some(
            (c) => c.close_reason.startsWith("dsl_close") && c.opened_at_ms === slot.opened_at_ms,
          )
        ) {
          dslClosed = true;
          break;
        }
        await sleep(200);
      }
    }
    const code = await exited;
    expect(code, stderr).toBe(0);
    expect(dslClosed, stderr).toBe(true);

    const st = readState()!;
    expect(st.tick_count).toBe(MAX_TICKS);
    expect(st.preset).toBe("default");
    expect(st.total_trades).toBeGreaterThanOrEqual(2);
    const dslClose = st.closed_slots.find((c) => c.close_reason.startsWith("dsl_close"))!;
    expect(dslClose.close_reason).toMatch(/Phase 2 close: tier 3/);
    expect(dslClose.dsl_phase).toBe(2);

    // trades.jsonl ↔ the exchange's fills, and open slots ↔ the exchange's positions
    const env2 = { DATA_DIR: dataDir };
    const wallet = loadOrCreatePaperWallet(env2);
    const client = await HlClient.create({
      network: "paper",
      apiUrl: world.url,
      paperWallet: false,
      env: {},
    });
    const fills = await client.userFillsSince({ user: wallet.address, startTime: 0 });
    const trades = readTrades(dataDir);
    expect(trades.length).toBe(st.total_trades);
    for (const t of trades) {
      const mine = fills.filter((f) => String(f.oid) === t.oid);
      expect(mine.length, `fills of ${t.oid}`).toBeGreaterThan(0);
      expect(mine.reduce((s, f) => s.plus(f.sz), dec(0)).eq(t.quantity)).toBe(true);
      expect(mine.reduce((s, f) => s.plus(f.fee), dec(0)).eq(t.fee)).toBe(true);
    }
    const summary = await client.accountSummary({ user: wallet.address });
    const open = st.slots.filter((s) => s.status !== "empty");
    expect(summary.positions.length).toBe(open.length);
    for (const s of open) {
      const p = summary.positions.find((x) => x.instrument === s.instrument)!;
      expect(p, s.instrument).toBeDefined();
      expect(dec(p.szi).abs().eq(s.entry_size)).toBe(true);
      expect(dec(p.szi).gt(0) ? "long" : "short").toBe(s.side);
    }

    // The run is over: the four read-only commands below start together (each is a process start).
    const hl = (...args: string[]) => exec("node", [HL, ...args, "--data-dir", dataDir], { env: env() });
    const [{ stdout: text }, { stdout: json }, { stdout: journalJson }, { stdout: journalText }] =
      await Promise.all([
        hl("wolf", "status"),
        hl("wolf", "status", "--json"),
        hl("journal", "view", "--json"),
        hl("journal", "view"),
      ]);

    // `hl wolf status` tells the same story
    expect(text).toContain("WOLF Orchestrator — default preset");
    expect(text).toContain(`Tick: ${MAX_TICKS} |`);
    expect(text).toContain(`Slots: ${open.length}/3`);
    for (const s of open)
      expect(text).toContain(
        `Slot ${s.slot_id}: ${s.instrument} ${s.side.toUpperCase()} ${s.entry_size} @ ${s.entry_price}`,
      );
    const status = JSON.parse(json);
    expect(
      status.closed_slots.some((c: { close_reason: string }) => c.close_reason.startsWith("dsl_close")),
    ).toBe(true);
    expect(status.max_slots).toBe(3);
    expect(stdout).toContain("WOLF Orchestrator");
    await client.close();

    // The close is in the trade journal, through the CLI and through MCP, and the session is remembered.
    const journal = JSON.parse(journalJson) as JournalEntry[];
    expect(journal).toHaveLength(st.closed_slots.length);
    const entry = journal.find((e) => e.close_reason === dslClose.close_reason)!;
    expect(entry).toMatchObject({
      instrument: dslClose.instrument,
      direction: dslClose.side,
      pnl: dslClose.realized_pnl,
      entry_source: dslClose.entry_source,
    });
    expect(entry.exit_reasoning).toMatch(/^Trailing stop closed the position/);
    expect(entry.entry_reasoning.length).toBeGreaterThan(0);
    expect(["good", "fair", "poor"]).toContain(entry.signal_quality);
    expect(journalText).toContain(`[${entry.entry_id}]`);

    const mcp = await connectStdio({ ...serverEnv(dirs), DATA_DIR: dataDir });
    try {
      const tj = await call(mcp, "trade_journal", {});
      expect(tj.isError, toolText(tj)).toBeFalsy();
      const entries = (tj.structuredContent as { entries: JournalEntry[] }).entries;
      expect(entries.map((e) => e.entry_id)).toContain(entry.entry_id);
      const mem = await call(mcp, "agent_memory", {});
      const types = (mem.structuredContent as { events: { event_type: string }[] }).events.map(
        (e) => e.event_type,
      );
      expect(types).toEqual(expect.arrayContaining(["session_start", "session_end", "notable_trade"]));
    } finally {
      await mcp.close();
    }
  }, 120_000);
});

import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Dec, D as Decimal } from "../../src/core/decimal.ts";
import { type SimWorld, startSimWorld } from "../../src/sim/world.ts";

/**
 * A real paper run (`hl run … --mock` against a sim world) writes `$DATA_DIR/cli/trades.jsonl`;
 * `hl howl run` must then report exactly the trades and PnL in that file.
 */

const run = promisify(execFile);
const HL = join(import.meta.dirname, "../../bin/hl.mjs");

let world: SimWorld;
let root: string;
let env: NodeJS.ProcessEnv;

function hl(args: string[]) {
  return run("node", [HL, ...args], { env, timeout: 90_000 });
}

interface Line {
  side: string;
  price: string;
  quantity: string;
  fee: string;
  instrument: string;
}

/**
 * Independent oracle for FIFO realized PnL: on each instrument the first M units bought are matched
 * with the first M units sold (M = min of both totals), whatever the order; fees count pro rata.
 */
function realizedNet(lines: Line[]): Dec {
  let net = new Decimal(0);
  for (const instrument of new Set(lines.map((l) => l.instrument))) {
    const book = lines.filter((l) => l.instrument === instrument);
    const total = (side: string) =>
      book.filter((l) => l.side === side).reduce((s, l) => s.plus(l.quantity), new Decimal(0));
    let remaining = {
      buy: Decimal.min(total("buy"), total("sell")),
      sell: Decimal.min(total("buy"), total("sell")),
    };
    for (const l of book) {
      const side = l.side as "buy" | "sell";
      const take = Decimal.min(remaining[side], l.quantity);
      if (take.lte(0)) continue;
      remaining = { ...remaining, [side]: remaining[side].minus(take) };
      const value = take.times(l.price);
      net = side === "sell" ? net.plus(value) : net.minus(value);
      net = net.minus(new Decimal(l.fee).times(take).div(l.quantity));
    }
  }
  return net;
}

beforeAll(async () => {
  world = await startSimWorld({ port: 0 });
  root = mkdtempSync(join(tmpdir(), "hl-howl-e2e-"));
  env = {
    ...process.env,
    DATA_DIR: join(root, "data"),
    HL_AGENT_HOME: join(root, "home"),
    HL_API_URL: world.url,
    HL_NETWORK: "",
    HL_PRIVATE_KEY: "",
    HL_KEYSTORE_ADDRESS: "",
  };
  await hl(["run", "aggressive_taker", "--mock", "--tick", "0.2", "--max-ticks", "6"]);
}, 120_000);

afterAll(async () => {
  await world?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe("hl howl run after a paper run", () => {
  it("reports the trade count and net PnL of trades.jsonl, and writes report-latest.md", async () => {
    const file = join(root, "data", "cli", "trades.jsonl");
    const lines = readFileSync(file, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Line);
    expect(lines.length).toBeGreaterThanOrEqual(2);

    const { stdout } = await hl(["howl", "run"]);
    expect(stdout).toContain("Full report saved to:");
    const latest = join(root, "data", "howl", "report-latest.md");
    expect(existsSync(latest)).toBe(true);
    const reports = readdirSync(join(root, "data", "howl")).filter((f) =>
      /^\d{4}-\d{2}-\d{2}-\d{6}\.md$/.test(f),
    );
    expect(reports).toHaveLength(1);
    const md = readFileSync(latest, "utf8");
    expect(md).toBe(readFileSync(join(root, "data", "howl", reports[0]!), "utf8"));

    expect(md).toContain(`| Trades | ${lines.length} |`);
    const net = realizedNet(lines).toDecimalPlaces(2, Decimal.ROUND_HALF_EVEN);
    const sign = net.isNegative() && !net.isZero() ? "-" : "+";
    expect(md).toContain(`| **Net PnL** | **$${sign}${net.abs().toFixed(2)}** |`);

    const { stdout: printed } = await hl(["howl", "report"]);
    expect(printed).toBe(md);
  }, 60_000);
});

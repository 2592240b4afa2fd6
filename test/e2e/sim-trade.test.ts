import { type ChildProcess, execFile, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** `hl sim serve` as a real process, then `hl trade` and `hl account` against it as real processes. */

const run = promisify(execFile);
const HL = join(import.meta.dirname, "../../bin/hl.mjs");

let sim: ChildProcess | undefined;
let dataDir: string;
let url: string;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

async function waitForInfo(base: string, deadlineMs: number): Promise<void> {
  const until = Date.now() + deadlineMs;
  while (Date.now() < until) {
    try {
      const res = await fetch(`${base}/info`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ type: "meta" }),
      });
      if (res.ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`sim world did not answer at ${base} within ${deadlineMs} ms`);
}

function hlEnv(extra: Record<string, string> = {}) {
  return { ...process.env, DATA_DIR: dataDir, HL_API_URL: url, HL_NETWORK: "", HL_PRIVATE_KEY: "", ...extra };
}

function hl(args: string[], extra: Record<string, string> = {}) {
  return run("node", [HL, ...args], { env: hlEnv(extra), timeout: 30_000 });
}

/** Run `hl` on a pseudo-terminal (util-linux `script`), typing `input`. */
function hlOnTty(args: string[], input: string): string {
  const command = ["node", HL, ...args].map((a) => `'${a}'`).join(" ");
  return execFileSync("script", ["-qec", command, "/dev/null"], {
    env: hlEnv(),
    input,
    timeout: 30_000,
  }).toString();
}

function hasScript(): boolean {
  try {
    execFileSync("script", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "hl-e2e-trade-"));
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  // Some thirty `hl` processes in about a minute, each reading the market list and account afresh: more
  // than one IP's 1200 weight a minute (live too: `hl` then says "rate limited by the exchange"). The
  // limit itself is test/sim/server/ip-weight.test.ts's subject; the per-address limit stays on.
  sim = spawn(
    "node",
    [HL, "sim", "serve", "--port", String(port), "--seed", "3", "--ip-weight-limit", "off"],
    {
      env: { ...process.env, DATA_DIR: dataDir },
      stdio: ["ignore", "ignore", "inherit"],
    },
  );
  await waitForInfo(url, 20_000);
});

afterAll(async () => {
  if (sim && sim.exitCode === null) {
    const exited = new Promise((r) => sim?.once("exit", r));
    sim.kill("SIGTERM");
    await exited;
  }
  rmSync(dataDir, { recursive: true, force: true });
});

// Each `hl` process pays tsx start-up (seconds on a loaded 2-core machine): generous per-test limits.
describe("hl trade / hl account against hl sim serve", { timeout: 120_000 }, () => {
  it("buys on paper with the paper wallet and shows the position", async () => {
    const trade = await hl(["trade", "ETH-PERP", "buy", "0.01", "--yes", "--network", "paper"]);
    expect(trade.stdout).toMatch(/Created a paper wallet 0x[0-9a-fA-F]{40}/);
    expect(trade.stdout).toMatch(/^Filled: BUY 0\.01 ETH-PERP @ \d+(\.\d+)? \(oid \d+\)$/m);

    const account = await hl(["account", "--json", "--network", "paper"]);
    const parsed = JSON.parse(account.stdout) as {
      positions: { instrument: string; size: string }[];
      account_value: string;
    };
    expect(parsed.positions).toContainEqual(
      expect.objectContaining({ instrument: "ETH-PERP", size: "0.01" }),
    );
    expect(Number(parsed.account_value)).toBeGreaterThan(0);

    const table = await hl(["account", "--network", "paper"]);
    expect(table.stdout).toMatch(/Paper wallet 0x/);
    expect(table.stdout).toMatch(/main\s+ETH-PERP\s+LONG\s+0\.01/);
  });

  it.skipIf(!hasScript())(
    "asks Confirm? [y/N] on a terminal without --yes: no places nothing, yes trades",
    async () => {
      const declined = hlOnTty(["trade", "ETH-PERP", "buy", "0.01"], "n\n");
      expect(declined).toMatch(/BUY 0\.01 ETH-PERP @ \d+(\.\d+)? Ioc on paper/);
      expect(declined).toMatch(/Confirm\? \[y\/N\]/);
      expect(declined).toMatch(/Cancelled\./);
      expect(hlOnTty(["trade", "ETH-PERP", "buy", "0.01"], "y\n")).toMatch(/Filled: BUY 0\.01 ETH-PERP/);
      // 0.01 from the first test + 0.01 confirmed here; the declined order would have made it 0.03
      const after = JSON.parse((await hl(["account", "--json"])).stdout) as {
        positions: { instrument: string; size: string }[];
      };
      expect(after.positions).toContainEqual(
        expect.objectContaining({ instrument: "ETH-PERP", size: "0.02" }),
      );
    },
  );

  it("keeps a malformed private key out of the error", async () => {
    const secret = `0x${"ab".repeat(32)}cd`;
    const err = (await hl(["account", "--network", "testnet"], { HL_PRIVATE_KEY: secret }).catch(
      (e: unknown) => e,
    )) as {
      code: number;
      stderr: string;
      stdout: string;
    };
    expect(err.code).toBe(1);
    expect(err.stderr).toMatch(/^error: HL_PRIVATE_KEY is not a private key/);
    expect(err.stderr + err.stdout).not.toContain("abababab");
  });

  it("reports a refusal in one line with a non-zero exit", async () => {
    const err = await hl(["trade", "ETH-PERP", "buy", "0.0001", "--yes", "--price", "1"]).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect("code" in err && err.code).toBe(1);
    expect((err as { stderr: string }).stderr.trim().split("\n")).toHaveLength(1);
    expect((err as { stderr: string }).stderr).toMatch(/^error: /);
  });

  it("orders lists resting orders; cancel takes one by oid; close --all cancels the rest and flattens every dex", async () => {
    await hl(["trade", "ETH-PERP", "buy", "0.01", "--price", "1000", "--yes"]);
    await hl(["trade", "VXX-USDYP", "buy", "1", "--price", "10", "--yes"]);
    await hl(["trade", "BTC-PERP", "sell", "0.002", "--yes"]);
    const listed = JSON.parse((await hl(["orders", "--json"])).stdout) as {
      orders: { instrument: string; oid: number; side: string; size: string; price: string }[];
    };
    expect(listed.orders.map((o) => [o.instrument, o.side, Number(o.size), Number(o.price)])).toEqual([
      ["ETH-PERP", "buy", 0.01, 1000],
      ["VXX-USDYP", "buy", 1, 10],
    ]);
    const eth = listed.orders.find((o) => o.instrument === "ETH-PERP")!;

    const one = await hl(["cancel", "ETH-PERP", "--oid", String(eth.oid)]);
    expect(one.stdout).toContain(`Cancelled: ETH-PERP oid ${eth.oid}`);
    const missing = await hl(["cancel", "ETH-PERP", "--oid", String(eth.oid)]).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect(missing).toMatchObject({ code: 1, stderr: `error: no resting order ${eth.oid} on ETH-PERP\n` });

    const closed = JSON.parse((await hl(["close", "--all", "--json"])).stdout) as {
      cancels: { instrument: string; error?: string }[];
      closes: { instrument: string; size: string; result: { status: string; totalSz?: string } }[];
    };
    expect(closed.cancels).toEqual([{ instrument: "VXX-USDYP", oid: expect.any(Number) }]);
    expect(closed.closes.map((c) => [c.instrument, c.result.status]).sort()).toEqual([
      ["BTC-PERP", "filled"],
      ["ETH-PERP", "filled"],
    ]);
    for (const c of closed.closes) expect(c.result.totalSz).toBe(c.size.replace("-", ""));

    const fail = (e: { code: number; stderr: string }) => e;
    const [account, orders, nothing, bare] = await Promise.all([
      hl(["account", "--json"]),
      hl(["orders", "--json"]),
      hl(["close", "--all"]),
      hl(["cancel"]).catch(fail),
    ]);
    expect(JSON.parse(account.stdout)).toMatchObject({ positions: [] });
    expect(JSON.parse(orders.stdout)).toMatchObject({ orders: [] });
    expect(nothing.stdout).toContain("No open positions to close.");
    expect(bare).toMatchObject({
      code: 1,
      stderr: "error: name an instrument, or cancel everything with --all\n",
    });
  });

  it("hl sim serve with DATA_DIR keeps its state in DATA_DIR/sim and holds the world lock", async () => {
    expect(existsSync(join(dataDir, "sim", "sim.db"))).toBe(true);
    expect(existsSync(join(dataDir, "sim", "world.lock"))).toBe(true);
  });
});

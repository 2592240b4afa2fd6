import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";

/**
 * One-off paper commands share one persisted sim world: `hl trade` starts it in-process, trades and
 * saves it to DATA_DIR/sim; the next `hl account` restores it and shows the position.
 */

const run = promisify(execFile);
const HL = join(import.meta.dirname, "../../bin/hl.mjs");
let dataDir: string;
let env: Record<string, string | undefined>;

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

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "hl-paper-persist-"));
  const port = await freePort();
  env = {
    ...process.env,
    DATA_DIR: dataDir,
    HL_NETWORK: "paper",
    HL_API_URL: `http://127.0.0.1:${port}`,
    SIM_PORT: String(port),
    HL_PRIVATE_KEY: "",
  };
});

afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

it("hl trade, then hl account in a new process, shows the position", async () => {
  const trade = await run("node", [HL, "trade", "VXX-USDYP", "buy", "1"], { env, timeout: 60_000 });
  expect(trade.stdout).toMatch(/Filled: BUY 1 VXX-USDYP/);
  // a new account's first order on a HIP-3 dex turns dex abstraction on, and says so
  expect(trade.stdout).toMatch(/turned HIP-3 dex abstraction on/);
  const account = await run("node", [HL, "account", "--json"], { env, timeout: 60_000 });
  const a = JSON.parse(account.stdout) as {
    positions: { coin?: string; instrument?: string; size?: string }[];
  };
  expect(JSON.stringify(a.positions)).toContain("VXX");
  expect(a.positions).toHaveLength(1);
}, 120_000);

import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { generatePrivateKey, privateKeyToAddress } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SimWorld, startSimWorld } from "../../src/sim/world.ts";

/**
 * `hl setup claim-usdyp` against the sim world's copy of Nunchi's claim endpoint: a wallet the
 * exchange has never seen is refused with the usual cause and its fix; once connected it is credited;
 * a second claim is refused.
 */

const HL = join(import.meta.dirname, "../../bin/hl.mjs");
const run = promisify(execFile);
let world: SimWorld;
let dataDir: string;

beforeAll(async () => {
  world = await startSimWorld({ port: 0, seed: 3, houseMakers: false });
  dataDir = mkdtempSync(join(tmpdir(), "claim-usdyp-"));
});

afterAll(async () => {
  await world?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function hl(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    HL_API_URL: world.url,
    HL_NETWORK: "paper",
    HL_PRIVATE_KEY: "",
  };
  delete env.USDYP_CLAIM_URL;
  try {
    const r = await run(process.execPath, [HL, ...args], { env, timeout: 30_000 });
    return { code: 0, ...r };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return { code: err.code ?? -1, stdout: err.stdout ?? "", stderr: err.stderr ?? "" };
  }
}

async function accountValue(user: string): Promise<number> {
  const res = await fetch(`${world.url}/info`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ type: "clearinghouseState", user }),
  });
  return Number(
    ((await res.json()) as { marginSummary: { accountValue: string } }).marginSummary.accountValue,
  );
}

describe("hl setup claim-usdyp on the sim world", () => {
  it("names the not-yet-connected wallet and its fix, then claims once", async () => {
    const address = privateKeyToAddress(generatePrivateKey());
    const refused = await hl("setup", "claim-usdyp", "--address", address);
    expect(refused.code).toBe(1);
    const line = refused.stderr.trim();
    expect(line.split("\n")).toHaveLength(1);
    expect(line).toMatch(/HTTP 404: User not found/);
    expect(line).toContain("has not been connected on Nunchi's testnet app yet");
    expect(line).toContain("run 'hl setup claim-usdyp' again");

    const before = await accountValue(address); // the exchange sees the wallet: "connected"
    const ok = await hl("setup", "claim-usdyp", "--address", address, "--json");
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({
      url: `${world.url}/api/v1/yex/usdyp-claim`,
      status: 200,
      body: { success: true, userAddress: address.toLowerCase() },
    });
    expect(await accountValue(address)).toBe(before + 1000);

    const again = await hl("setup", "claim-usdyp", "--address", address);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/HTTP 409: USDyP already claimed/);
  }, 60_000);

  it("sends the body and header the service expects, to an overridable base URL", async () => {
    const { createServer } = await import("node:http");
    const seen: { path?: string; network?: string; body?: string } = {};
    const server = createServer((req, res) => {
      let body = "";
      req.on("data", (d) => (body += d));
      req.on("end", () => {
        Object.assign(seen, { path: req.url, network: req.headers["x-network"], body });
        res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    const port = (server.address() as { port: number }).port;
    const address = privateKeyToAddress(generatePrivateKey());
    try {
      const r = await hl("setup", "claim-usdyp", "--address", address, "--url", `http://127.0.0.1:${port}/`);
      expect(r.code, r.stderr).toBe(0);
      expect(seen).toEqual({
        path: "/api/v1/yex/usdyp-claim",
        network: "testnet",
        body: JSON.stringify({ userAddress: address }),
      });
    } finally {
      server.close();
    }
  }, 30_000);
});

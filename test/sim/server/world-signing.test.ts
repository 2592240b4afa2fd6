import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ExchangeClient, HttpTransport } from "@nktkas/hyperliquid";
import { signL1Action } from "@nktkas/hyperliquid/signing";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, describe, expect, it } from "vitest";
import { type SimWorld, startSimWorld } from "../../../src/sim/world.ts";

/** Signatures and nonces as the exchange keeps them: one signing flavour, nonces that outlive a restart. */

const dir = mkdtempSync(join(tmpdir(), "sim-signing-"));
const open: SimWorld[] = [];
afterAll(async () => {
  await Promise.all(open.map((w) => w.close()));
  rmSync(dir, { recursive: true, force: true });
});

async function world(stateDir?: string): Promise<SimWorld> {
  const w = await startSimWorld({
    seed: 2,
    historyDays: 0,
    liveCoins: ["BTC"],
    ...(stateDir ? { stateDir } : {}),
  });
  open.push(w);
  return w;
}

async function post(
  w: SimWorld,
  path: string,
  body: unknown,
): Promise<{ status: string; response: unknown }> {
  const r = await fetch(`${w.url}${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  return (await r.json()) as { status: string; response: unknown };
}

const action = { type: "updateLeverage", asset: 0, isCross: true, leverage: 3 };

describe("signing and nonces", () => {
  it("a signed action replayed after a restart is refused: its nonce was kept", async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const first = await world(dir);
    await post(first, "/info", { type: "clearinghouseState", user: wallet.address });
    const nonce = Date.now();
    const signature = await signL1Action({ wallet, action, nonce, isTestnet: true });
    expect((await post(first, "/exchange", { action, nonce, signature })).status).toBe("ok");
    await first.close();

    const second = await world(dir);
    expect(await post(second, "/exchange", { action, nonce, signature })).toEqual({
      status: "err",
      response: `Invalid nonce: duplicate nonce ${nonce}`,
    });
  });

  it("accepts one signing flavour, the one paper orders are signed with (testnet): a mainnet signature recovers no known wallet", async () => {
    const w = await world();
    const wallet = privateKeyToAccount(generatePrivateKey());
    await post(w, "/info", { type: "clearinghouseState", user: wallet.address });
    const nonce = Date.now() + 7;
    const mainnet = await signL1Action({ wallet, action, nonce, isTestnet: false });
    const refused = await post(w, "/exchange", { action, nonce, signature: mainnet });
    expect(refused.status).toBe("err");
    expect(refused.response).toMatch(/^User or API Wallet 0x[0-9a-f]{40} does not exist\.$/);
    expect(refused.response).not.toContain(wallet.address.toLowerCase());
    const testnet = await signL1Action({ wallet, action, nonce: nonce + 1, isTestnet: true });
    expect((await post(w, "/exchange", { action, nonce: nonce + 1, signature: testnet })).status).toBe("ok");
  });

  it("userRateLimit reports the requests an address has sent and its cap of 10,000 + 1 per USDC traded", async () => {
    const w = await world();
    const wallet = privateKeyToAccount(generatePrivateKey());
    await post(w, "/info", { type: "clearinghouseState", user: wallet.address });
    const nonce = Date.now() + 20;
    const signature = await signL1Action({ wallet, action, nonce, isTestnet: true });
    expect((await post(w, "/exchange", { action, nonce, signature })).status).toBe("ok");
    const limits = (await post(w, "/info", { type: "userRateLimit", user: wallet.address })) as unknown as {
      cumVlm: string;
      nRequestsUsed: number;
      nRequestsCap: number;
    };
    expect(Number(limits.cumVlm)).toBe(0);
    expect(limits).toMatchObject({ nRequestsUsed: 1, nRequestsCap: 10_000 });
  });

  it("reserveRequestWeight buys requests spent before the cap, charged to the perp balance and kept across a restart", async () => {
    const stateDir = mkdtempSync(join(dir, "reserve-"));
    const first = await world(stateDir);
    const wallet = privateKeyToAccount(generatePrivateKey());
    await post(first, "/info", { type: "clearinghouseState", user: wallet.address });
    const send = async (w: SimWorld, act: Record<string, unknown>, nonce: number) => {
      const signature = await signL1Action({ wallet, action: act, nonce, isTestnet: true });
      return post(w, "/exchange", { action: act, nonce, signature });
    };
    const nonce = Date.now() + 40;
    const reserve = { type: "reserveRequestWeight", weight: 100 };
    expect(await send(first, reserve, nonce)).toEqual({ status: "ok", response: { type: "default" } });
    expect((await send(first, action, nonce + 1)).status).toBe("ok");
    const limits = async (w: SimWorld) => post(w, "/info", { type: "userRateLimit", user: wallet.address });
    // The reserve itself counted against the cap; the request after it came out of the surplus.
    expect(await limits(first)).toMatchObject({
      nRequestsUsed: 1,
      nRequestsCap: 10_000,
      nRequestsSurplus: 99,
    });
    const state = await post(first, "/info", { type: "clearinghouseState", user: wallet.address });
    expect(state).toMatchObject({ withdrawable: "9999.95" });
    await first.close();
    const second = await world(stateDir);
    expect(await limits(second)).toMatchObject({ nRequestsUsed: 1, nRequestsSurplus: 99 });
  });

  it("a user-signed action the sim does not model is recovered to its signer and refused as not modelled", async () => {
    const w = await world();
    const wallet = privateKeyToAccount(generatePrivateKey());
    await post(w, "/info", { type: "clearinghouseState", user: wallet.address });
    const exchange = new ExchangeClient({
      transport: new HttpTransport({ apiUrl: w.url, isTestnet: true }),
      wallet,
    });
    await expect(exchange.cDeposit({ wei: 100_000_000 })).rejects.toThrow(
      "cDeposit is not modelled by the sim world.",
    );
    await expect(
      exchange.tokenDelegate({ validator: wallet.address, wei: 1, isUndelegate: false }),
    ).rejects.toThrow("tokenDelegate is not modelled by the sim world.");
    await expect(
      exchange.twapOrder({ twap: { a: 0, b: true, s: "1", r: false, m: 5, t: false } }),
    ).rejects.toThrow("twapOrder is not modelled by the sim world.");
  });

  it("the SDK's updateIsolatedMargin adds and removes margin of an isolated position, as on the exchange", async () => {
    const w = await world();
    const wallet = privateKeyToAccount(generatePrivateKey());
    await post(w, "/info", { type: "clearinghouseState", user: wallet.address });
    const exchange = new ExchangeClient({
      transport: new HttpTransport({ apiUrl: w.url, isTestnet: true }),
      wallet,
    });
    await exchange.updateLeverage({ asset: 0, isCross: false, leverage: 10 });
    const book = (await post(w, "/info", { type: "l2Book", coin: "BTC" })) as unknown as {
      levels: { px: string }[][];
    };
    const px = String(Math.ceil(Number(book.levels[1]![0]!.px) * 1.01));
    const placed = await exchange.order({
      orders: [{ a: 0, b: true, p: px, s: "0.001", r: false, t: { limit: { tif: "Ioc" } } }],
      grouping: "na",
    });
    expect(placed.response.data.statuses[0]).toHaveProperty("filled");
    // rawUsd (margin − entry value) moves with the margin only, not with the mark.
    const marginUsed = async () => {
      const state = (await post(w, "/info", {
        type: "clearinghouseState",
        user: wallet.address,
      })) as unknown as {
        assetPositions: { position: { leverage: { rawUsd: string } } }[];
      };
      return Number(state.assetPositions[0]!.position.leverage.rawUsd);
    };
    const before = await marginUsed();
    await expect(exchange.updateIsolatedMargin({ asset: 0, isBuy: true, ntli: 2_000_000 })).resolves.toEqual({
      status: "ok",
      response: { type: "default" },
    });
    expect(await marginUsed()).toBeCloseTo(before + 2, 6);
    await exchange.updateIsolatedMargin({ asset: 0, isBuy: true, ntli: -1_000_000 });
    expect(await marginUsed()).toBeCloseTo(before + 1, 6);
  });
});

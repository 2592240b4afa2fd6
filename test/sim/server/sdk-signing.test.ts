import { ExchangeClient, HttpTransport, InfoClient } from "@nktkas/hyperliquid";
import { ApiRequestError } from "@nktkas/hyperliquid/api/exchange";
import { signL1Action } from "@nktkas/hyperliquid/signing";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SimWorld, startSimWorld } from "../../../src/sim/world.ts";

let world: SimWorld;
let transport: HttpTransport;
let info: InfoClient;
const BUILDER = "0x00000000000000000000000000000000000b1d01" as const;

beforeAll(async () => {
  world = await startSimWorld({ seed: 1 });
  transport = new HttpTransport({ apiUrl: world.url, isTestnet: true });
  info = new InfoClient({ transport });
});
afterAll(() => world.close());

/** A fresh wallet the sim has seen (looked up once, so it holds the starting balance). */
async function freshWallet() {
  const wallet = privateKeyToAccount(generatePrivateKey());
  const state = await info.clearinghouseState({ user: wallet.address });
  expect(state.marginSummary.accountValue).toBe("10000");
  return wallet;
}

async function bestAsk(coin: string): Promise<number> {
  const book = await info.l2Book({ coin });
  return Number(book!.levels[1][0]!.px);
}

async function postExchange(body: unknown): Promise<unknown> {
  const r = await fetch(`${world.url}/exchange`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(r.status).toBe(200);
  expect(r.headers.get("content-type")).toContain("application/json");
  return r.json();
}

describe("signature verification through the SDK", () => {
  it("accepts a user-signed approveBuilderFee and an order with that builder", async () => {
    const wallet = await freshWallet();
    const exchange = new ExchangeClient({ transport, wallet });
    await expect(exchange.approveBuilderFee({ maxFeeRate: "0.1%", builder: BUILDER })).resolves.toMatchObject(
      { status: "ok" },
    );
    expect(await info.maxBuilderFee({ user: wallet.address, builder: BUILDER })).toBe(100);

    const px = String(Math.ceil((await bestAsk("BTC")) * 1.01));
    const res = await exchange.order({
      orders: [{ a: 0, b: true, p: px, s: "0.001", r: false, t: { limit: { tif: "Ioc" } } }],
      grouping: "na",
      builder: { b: BUILDER, f: 10 },
    });
    expect(res.response.data.statuses[0]).toHaveProperty("filled");
    const fills = await info.userFills({ user: wallet.address });
    expect(fills[0]).toMatchObject({ coin: "BTC", side: "B", sz: "0.001" });
    expect(Number(fills[0]!.builderFee)).toBeGreaterThan(0);
  });

  it("refuses an action changed after signing, or with its keys reordered", async () => {
    const wallet = await freshWallet();
    await new ExchangeClient({ transport, wallet }).approveBuilderFee({
      maxFeeRate: "0.1%",
      builder: BUILDER,
    });
    const action = {
      type: "order",
      orders: [{ a: 0, b: true, p: "50000", s: "0.001", r: false, t: { limit: { tif: "Gtc" } } }],
      grouping: "na",
      builder: { b: BUILDER, f: 10 },
    };
    let nonce = Date.now() + 1000;
    const signature = await signL1Action({ wallet, action, nonce, isTestnet: true });
    const tampered = { ...action, builder: { b: BUILDER, f: 50 } };
    const r1 = (await postExchange({ action: tampered, signature, nonce })) as {
      status: string;
      response: string;
    };
    expect(r1.status).toBe("err");
    expect(r1.response).toMatch(/^User or API Wallet 0x[0-9a-f]{40} does not exist\.$/);
    expect(r1.response).not.toContain(wallet.address.toLowerCase());

    nonce += 1;
    const sig2 = await signL1Action({ wallet, action, nonce, isTestnet: true });
    const reordered = {
      grouping: action.grouping,
      type: action.type,
      orders: action.orders,
      builder: action.builder,
    };
    const r2 = (await postExchange({ action: reordered, signature: sig2, nonce })) as { status: string };
    expect(r2.status).toBe("err");

    // The untouched action with the same signature goes through: the refusals were the tampering.
    const r3 = (await postExchange({ action, signature: sig2, nonce })) as { status: string };
    expect(r3).toMatchObject({ status: "ok" });
  });

  it("refuses a wallet the sim has never seen, as the exchange does", async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const exchange = new ExchangeClient({ transport, wallet });
    await expect(exchange.updateLeverage({ asset: 0, isCross: true, leverage: 2 })).rejects.toThrow(
      `User or API Wallet ${wallet.address.toLowerCase()} does not exist.`,
    );
  });

  it("refuses a reused nonce and a stale one", async () => {
    const wallet = await freshWallet();
    const fixed = Date.now() + 5;
    const exchange = new ExchangeClient({ transport, wallet, nonceManager: () => fixed });
    await exchange.updateLeverage({ asset: 0, isCross: true, leverage: 2 });
    const second = exchange.updateLeverage({ asset: 0, isCross: true, leverage: 3 });
    await expect(second).rejects.toBeInstanceOf(ApiRequestError);
    await expect(second).rejects.toThrow(`Invalid nonce: duplicate nonce ${fixed}`);

    const stale = new ExchangeClient({
      transport,
      wallet,
      nonceManager: () => world.clock.now() - 3 * 86_400_000,
    });
    await expect(stale.updateLeverage({ asset: 0, isCross: true, leverage: 2 })).rejects.toThrow(
      /outside the allowed window/,
    );
    const future = new ExchangeClient({
      transport,
      wallet,
      nonceManager: () => world.clock.now() + 2 * 86_400_000,
    });
    await expect(future.updateLeverage({ asset: 0, isCross: true, leverage: 2 })).rejects.toThrow(
      /outside the allowed window/,
    );
  });

  it("maps an approved agent's signature to its master account", async () => {
    const master = await freshWallet();
    const agent = privateKeyToAccount(generatePrivateKey());
    await new ExchangeClient({ transport, wallet: master }).approveAgent({
      agentAddress: agent.address,
      agentName: "bot",
    });
    const asAgent = new ExchangeClient({ transport, wallet: agent });
    const res = await asAgent.order({
      orders: [{ a: 1, b: true, p: "1000", s: "0.01", r: false, t: { limit: { tif: "Gtc" } } }],
      grouping: "na",
    });
    expect(res.response.data.statuses[0]).toHaveProperty("resting");
    const open = await info.openOrders({ user: master.address });
    expect(open).toHaveLength(1);
    expect(open[0]).toMatchObject({ coin: "ETH", limitPx: "1000", sz: "0.01" });
    // An agent may not sign user-signed actions for its master.
    await expect(asAgent.approveBuilderFee({ maxFeeRate: "0.01%", builder: BUILDER })).rejects.toThrow(
      `Must deposit before performing actions. User: ${agent.address.toLowerCase()}`,
    );
  });

  it("verifies usdSend and withdraw3 (user-signed), and the receiver of a transfer may then sign", async () => {
    const sender = await freshWallet();
    const receiver = privateKeyToAccount(generatePrivateKey());
    const exchange = new ExchangeClient({ transport, wallet: sender });
    await exchange.usdSend({ destination: receiver.address, amount: "25" });
    await exchange.withdraw3({ destination: sender.address, amount: "100" });
    const state = await info.clearinghouseState({ user: sender.address });
    expect(Number(state.marginSummary.accountValue)).toBeLessThan(10000 - 25 - 100 + 0.0001);
    await expect(
      new ExchangeClient({ transport, wallet: receiver }).updateLeverage({
        asset: 0,
        isCross: true,
        leverage: 2,
      }),
    ).resolves.toMatchObject({ status: "ok" });
  });

  it("answers a body that is not an exchange request with 422, surfaced by the SDK as HttpRequestError", async () => {
    const r = await fetch(`${world.url}/exchange`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: "{",
    });
    expect(r.status).toBe(422);
    const r2 = await fetch(`${world.url}/exchange`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: "{}",
    });
    expect(r2.status).toBe(422);
    await expect(transport.request("exchange", { nope: 1 })).rejects.toThrow(/422.*Failed to deserialize/);
  });
});

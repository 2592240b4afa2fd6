import { ExchangeClient, HttpTransport, InfoClient } from "@nktkas/hyperliquid";
import { signL1Action } from "@nktkas/hyperliquid/signing";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SimWorld, startSimWorld } from "../../../src/sim/world.ts";

let world: SimWorld;
let transport: HttpTransport;
let info: InfoClient;
const BUILDER = "0x00000000000000000000000000000000000b1d02" as const;

beforeAll(async () => {
  world = await startSimWorld({ seed: 3, houseMakers: false });
  transport = new HttpTransport({ apiUrl: world.url, isTestnet: true });
  info = new InfoClient({ transport });
});
afterAll(() => world.close());

async function funded() {
  const wallet = privateKeyToAccount(generatePrivateKey());
  await info.clearinghouseState({ user: wallet.address });
  return wallet;
}

async function withAgent() {
  const master = await funded();
  const agent = privateKeyToAccount(generatePrivateKey());
  await new ExchangeClient({ transport, wallet: master }).approveAgent({ agentAddress: agent.address });
  return { master, agent };
}

async function post(body: unknown): Promise<{ status: string; response: unknown }> {
  const r = await fetch(`${world.url}/exchange`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  return (await r.json()) as { status: string; response: unknown };
}

let nonceSeq = Date.now() + 10_000;

/** An agent signs a fund-moving action the L1 way (no signatureChainId), as if it were an order. */
async function agentSignsL1(agent: ReturnType<typeof privateKeyToAccount>, action: Record<string, unknown>) {
  const nonce = ++nonceSeq;
  const signed = {
    ...action,
    ...(action.type === "usdSend" || action.type === "withdraw3" ? { time: nonce } : { nonce }),
  };
  const signature = await signL1Action({ wallet: agent, action: signed, nonce, isTestnet: true });
  return post({ action: signed, signature, nonce });
}

const order = (px: string) => ({
  orders: [{ a: 1, b: true, p: px, s: "0.01", r: false, t: { limit: { tif: "Gtc" as const } } }],
  grouping: "na" as const,
});

describe("an API wallet never moves funds or grants approvals", () => {
  it("refuses usdSend, withdraw3, approveAgent and approveBuilderFee signed by an agent without signatureChainId", async () => {
    const { master, agent } = await withAgent();
    const thief = privateKeyToAccount(generatePrivateKey()).address.toLowerCase();
    const actions: Record<string, unknown>[] = [
      { type: "usdSend", hyperliquidChain: "Mainnet", destination: thief, amount: "500" },
      { type: "withdraw3", hyperliquidChain: "Mainnet", destination: thief, amount: "500" },
      { type: "approveAgent", hyperliquidChain: "Mainnet", agentAddress: thief, agentName: null },
      { type: "approveBuilderFee", hyperliquidChain: "Mainnet", maxFeeRate: "1%", builder: thief },
    ];
    for (const action of actions) {
      const r = await agentSignsL1(agent, action);
      expect(r.status, `${String(action.type)} must be refused`).toBe("err");
      expect(String(r.response)).toContain("signatureChainId");
    }
    const state = await info.clearinghouseState({ user: master.address });
    expect(state.marginSummary.accountValue).toBe("10000");
    expect(await info.maxBuilderFee({ user: master.address, builder: thief as `0x${string}` })).toBe(0);
    expect(await info.userRole({ user: thief as `0x${string}` })).toEqual({ role: "missing" });
  });

  it("refuses a user-signed action from an agent as the exchange does: the agent has no deposit", async () => {
    const { agent } = await withAgent();
    const asAgent = new ExchangeClient({ transport, wallet: agent });
    await expect(asAgent.approveBuilderFee({ maxFeeRate: "0.01%", builder: BUILDER })).rejects.toThrow(
      `Must deposit before performing actions. User: ${agent.address.toLowerCase()}`,
    );
  });
});

describe("agents as the exchange keeps them", () => {
  it("a new unnamed approval replaces the previous unnamed agent", async () => {
    const { master, agent: first } = await withAgent();
    const second = privateKeyToAccount(generatePrivateKey());
    await new ExchangeClient({ transport, wallet: master }).approveAgent({ agentAddress: second.address });
    await expect(new ExchangeClient({ transport, wallet: first }).order(order("1000"))).rejects.toThrow(
      `User or API Wallet ${first.address.toLowerCase()} does not exist.`,
    );
    const res = await new ExchangeClient({ transport, wallet: second }).order(order("1000"));
    expect(res.response.data.statuses[0]).toHaveProperty("resting");
    const listed = await info.extraAgents({ user: master.address });
    expect(listed.map((a) => a.address)).toEqual([second.address.toLowerCase()]);
  });

  it("keeps at most three named agents; approving a name again replaces that agent", async () => {
    const master = await funded();
    const exchange = new ExchangeClient({ transport, wallet: master });
    const agents = [0, 1, 2, 3].map(() => privateKeyToAccount(generatePrivateKey()));
    for (const [i, a] of agents.slice(0, 3).entries())
      await exchange.approveAgent({ agentAddress: a.address, agentName: `bot${i}` });
    await expect(
      exchange.approveAgent({ agentAddress: agents[3]!.address, agentName: "bot3" }),
    ).rejects.toThrow(/named/i);
    await exchange.approveAgent({ agentAddress: agents[3]!.address, agentName: "bot1" });
    const listed = await info.extraAgents({ user: master.address });
    expect(listed.map((a) => [a.name, a.address]).sort()).toEqual(
      [
        ["bot0", agents[0]!.address.toLowerCase()],
        ["bot1", agents[3]!.address.toLowerCase()],
        ["bot2", agents[2]!.address.toLowerCase()],
      ].sort(),
    );
    await expect(new ExchangeClient({ transport, wallet: agents[1]! }).order(order("1000"))).rejects.toThrow(
      /does not exist/,
    );
  });

  it("honours validUntil: an expired agent may no longer sign and leaves extraAgents", async () => {
    const master = await funded();
    const agent = privateKeyToAccount(generatePrivateKey());
    const until = world.clock.now() + 60_000;
    await new ExchangeClient({ transport, wallet: master }).approveAgent({
      agentAddress: agent.address,
      agentName: `ttl valid_until ${until}`,
    });
    expect(await info.extraAgents({ user: master.address })).toEqual([
      { address: agent.address.toLowerCase(), name: "ttl", validUntil: until },
    ]);
    const asAgent = new ExchangeClient({ transport, wallet: agent });
    expect((await asAgent.order(order("1000"))).response.data.statuses[0]).toHaveProperty("resting");
    world.advance(61_000);
    await expect(asAgent.order(order("1000"))).rejects.toThrow(
      `User or API Wallet ${agent.address.toLowerCase()} does not exist.`,
    );
    expect(await info.extraAgents({ user: master.address })).toEqual([]);
  });
});

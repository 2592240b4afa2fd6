import { afterAll, beforeAll, expect, it } from "vitest";
import type { HlClient } from "../../src/exchange/index.ts";
import { type SimWorld, startSimWorld } from "../../src/sim/world.ts";
import { HlWolfPort } from "../../src/wolf/hl-port.ts";
import { simPaperClient } from "../support/sim-wolf.ts";

/**
 * WOLF's entries on HIP-3 dexes: a new account keeps each dex's USDC apart, so before an entry there
 * the port does what a live user must (dex-margin.ts).
 */

let world: SimWorld;
const clients: HlClient[] = [];

beforeAll(async () => {
  world = await startSimWorld({ ipWeightLimit: false, seed: 43 });
});
afterAll(async () => {
  for (const c of clients) await c.close();
  await world.close();
});

async function newClient(): Promise<HlClient> {
  const client = await simPaperClient(world);
  clients.push(client);
  return client;
}

it("an entry on a HIP-3 dex turns dex abstraction on for a new account, and its IOC fills from the main balance", async () => {
  const client = await newClient();
  const port = new HlWolfPort(client);
  expect(await client.userDexAbstraction()).toBeNull();
  await port.setLeverage("xyz:XYZ100", 5);
  expect(await client.userDexAbstraction()).toBe(true);
  const r = await port.ioc({
    coin: "xyz:XYZ100",
    side: "buy",
    size: "0.01",
    slippage: 0.05,
    reduceOnly: false,
    cloid: "0x000000000000000000000000000000a1",
  });
  expect(r.status).toBe("filled");
});

it("an entry on a HIP-3 dex the user keeps apart and left empty fails with one readable line", async () => {
  const client = await newClient();
  await client.clearinghouseState(); // the paper account's deposit
  await client.exchangeClient!.userSetAbstraction({ user: client.address!, abstraction: "disabled" });
  await expect(new HlWolfPort(client).setLeverage("yex:VXX", 2)).rejects.toThrow(
    "the account keeps each dex's USDC apart (dex abstraction off) and holds none on the yex dex: move USDC there (sendAsset) or turn dex abstraction on",
  );
});

import { startSimWorld } from "./src/sim/world.ts";
import { HlClient } from "./src/exchange/client.ts";
import { RateBudget } from "./src/exchange/budget.ts";
const world = await startSimWorld({ port: 0, seed: 3, speed: Number(process.argv[2] ?? 60) });
const client = await HlClient.create({ network: "paper", apiUrl: world.url, env: { DATA_DIR: "/tmp/latx" }, budget: new RateBudget({ weightPerMinute: 1e9 }) });
await client.clearinghouseState();
for (const [name, f] of [["l2Book", () => client.l2Book("ETH")], ["openOrders", () => client.openOrders({})], ["fills", () => client.userFillsSince({ startTime: Date.now() - 1000 })], ["ctx", () => client.metaAndAssetCtxs()]] as const) {
  const t = performance.now(); for (let i = 0; i < 20; i++) await (f as () => Promise<unknown>)(); console.log(name, ((performance.now() - t) / 20).toFixed(1), "ms");
}
await world.close();

import { generatePrivateKey } from "viem/accounts";
import { D } from "../src/core/decimal.ts";
import { HlClient, RateBudget, roundPrice } from "../src/exchange/index.ts";
import { startSimWorld } from "../src/sim/world.ts";
import { type BenchReporter, percentile } from "./harness.ts";

/**
 * The exchange client's own cost: info and order round-trips through HlClient (budget, retry
 * wrapper, SDK validation and signing) against a local sim world, beside a raw fetch of the same
 * request; and the decimal rounding applied to every order.
 */
async function time(n: number, fn: () => Promise<unknown>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn();
    samples.push(performance.now() - t0);
  }
  return samples;
}

export default async function (r: BenchReporter): Promise<void> {
  // The per-IP weight limit is off: it measures the client at full speed, far past one IP's 1200 weight a minute.
  const world = await startSimWorld({ ipWeightLimit: false, port: 0, seed: 11 });
  try {
    const client = await HlClient.create({
      network: "paper",
      apiUrl: world.url,
      privateKey: generatePrivateKey(),
      budget: new RateBudget({ weightPerMinute: 1e9 }), // measure the client, not the rate limit
    });
    await client.clearinghouseState();
    await client.symbols();

    const raw = () =>
      fetch(`${world.url}/info`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ type: "l2Book", coin: "ETH" }),
      }).then((res) => res.json());
    await time(20, raw);
    const rawSamples = await time(300, raw);
    const clientSamples = await time(300, () => client.l2Book("ETH-PERP"));
    const rawP50 = percentile(rawSamples, 50);
    r.figure({ name: "info l2Book raw fetch p50", value: rawP50, unit: "ms" });
    r.figure({
      name: "info l2Book via HlClient p50",
      value: percentile(clientSamples, 50),
      unit: "ms",
      baseline: { name: "raw fetch", value: rawP50 },
    });
    r.figure({ name: "info l2Book via HlClient p99", value: percentile(clientSamples, 99), unit: "ms" });

    const book = await client.l2Book("ETH-PERP");
    const farBid = new D(book?.levels[0][0]?.px ?? "1000").times("0.8");
    const orderSamples = await time(150, async () => {
      const res = await client.order({ instrument: "ETH-PERP", side: "buy", size: "0.01", price: farBid });
      if (res.status === "resting") await client.cancel({ instrument: "ETH-PERP", oid: res.oid });
    });
    r.figure({
      name: "signed order + cancel round-trip via HlClient p50",
      value: percentile(orderSamples, 50),
      unit: "ms",
    });
    r.figure({
      name: "signed order + cancel round-trip via HlClient p99",
      value: percentile(orderSamples, 99),
      unit: "ms",
    });

    const n = 200_000;
    const t0 = performance.now();
    for (let i = 0; i < n; i++) roundPrice(new D(i).div(7).plus("1234.56789"), 3, i & 1 ? "up" : "down");
    r.figure({ name: "roundPrice throughput", value: n / ((performance.now() - t0) / 1000), unit: "ops/s" });
    await client.close();
  } finally {
    await world.close();
  }
}

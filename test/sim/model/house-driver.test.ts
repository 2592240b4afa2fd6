import { describe, expect, it } from "vitest";
import { HOUSE_MAKER, HouseDriver, type HouseMarket } from "../../../src/sim/model/house-driver.ts";
import { MarketModel } from "../../../src/sim/model/market-model.ts";
import { createVenue, DEFAULT_MARKETS } from "../../../src/sim/venue/index.ts";

const T0 = Date.UTC(2026, 10, 22);
const SPECS = DEFAULT_MARKETS.filter((m) => m.name === "BTC" || m.name === "ETH");

function world() {
  const venue = createVenue({ seed: 1, clock: () => T0, markets: SPECS });
  const markets: HouseMarket[] = venue.markets().map((m) => ({
    coin: m.coin,
    asset: m.asset,
    szDecimals: m.szDecimals,
    maxLeverage: m.maxLeverage,
    onlyIsolated: m.onlyIsolated,
    impactNotionalUsd: 20_000,
    premiumStyle: "main",
  }));
  const model = new MarketModel(
    markets.map((m) => ({
      coin: m.coin,
      szDecimals: m.szDecimals,
      startPx: Number(SPECS.find((s) => s.name === m.coin)!.startPx),
      impactNotionalUsd: m.impactNotionalUsd,
    })),
    { seed: 1, startMs: T0 },
  );
  const driver = new HouseDriver(venue, model, markets, { quoting: true, startMs: T0 });
  driver.start();
  const btcOrders = () =>
    (venue.info({ type: "openOrders", user: HOUSE_MAKER }) as { coin: string; limitPx: string }[])
      .filter((o) => o.coin === "BTC")
      .map((o) => Number(o.limitPx));
  return { model, driver, btcOrders };
}

describe("house driver in real time", () => {
  it("replaces a market's ladder in steps of a few orders, ending with exactly the new ladder", () => {
    const { model, driver, btcOrders } = world();
    const before = btcOrders();
    expect(before.length).toBeGreaterThan(8);
    model.setPrice("BTC", 90_000);
    const steps = driver.syncMarketSteps(0);
    expect(steps.length).toBeGreaterThanOrEqual(4);
    for (const step of steps) step();
    const after = btcOrders();
    expect(after).toHaveLength(before.length);
    expect(Math.max(...after)).toBeLessThan(Math.min(...before));
    // Nothing to change: no steps.
    expect(driver.syncMarketSteps(0)).toEqual([]);
  });

  it("leaves no order behind when a catch-up takes the market over between two steps", () => {
    const { model, driver, btcOrders } = world();
    const n = btcOrders().length;
    model.setPrice("BTC", 90_000);
    const steps = driver.syncMarketSteps(0);
    for (const step of steps.slice(0, Math.ceil(steps.length / 2) + 1)) step();
    model.setPrice("BTC", 80_000);
    driver.syncMarkets(0, 1);
    for (const step of steps) step();
    const orders = btcOrders();
    expect(orders).toHaveLength(n);
    expect(Math.max(...orders)).toBeLessThan(85_000);
  });
});

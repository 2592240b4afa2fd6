import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { dec } from "../../src/core/decimal.ts";
import { runGuardLoop } from "../../src/wolf/dsl-guard-loop.ts";
import { givenEntry, StandaloneGuard } from "../../src/wolf/dsl-runner.ts";
import { FakePort } from "./fake-port.ts";

const dir = () => mkdtempSync(join(tmpdir(), "dsl-fix-"));

/** Prices through the floor until the guard has decided (and tried) to close. */
async function breach(port: FakePort, g: StandaloneGuard, px: number, times = 4) {
  for (let i = 0; i < times && !g.done; i++) {
    port.clock += 11_000;
    port.prices.set("ETH", px);
    await g.onPrice(px);
  }
}

describe("hl dsl start closes only what it guards", () => {
  it("a guarded long of 1 inside an exchange long of 3: the close sells 1, not 3", async () => {
    const port = new FakePort({ ETH: 2000 });
    port.pos.set("ETH", { szi: dec(3), entry: dec(2000) });
    const given = givenEntry({ entry: "2000", size: "1", direction: "long" })!;
    const g = await StandaloneGuard.open({
      port,
      coin: "ETH",
      dir: dir(),
      preset: "tight",
      leverage: 10,
      given,
    });
    await breach(port, g, 1990);
    expect(g.done).toBe(true);
    expect(port.orders.filter((o) => o.reduceOnly).map((o) => [o.side, o.size])).toEqual([["sell", "1"]]);
    expect((await port.positions())[0]!.szi).toBe("2");
  });

  it("a guarded long when the exchange holds a short: nothing is sent (that would add to the short)", async () => {
    const port = new FakePort({ ETH: 2000 });
    port.pos.set("ETH", { szi: dec(-2), entry: dec(2000) });
    const given = givenEntry({ entry: "2000", size: "1", direction: "long" })!;
    const lines: string[] = [];
    const g = await StandaloneGuard.open({
      port,
      coin: "ETH",
      dir: dir(),
      preset: "tight",
      leverage: 10,
      given,
      log: (l) => lines.push(l),
    });
    await breach(port, g, 1990);
    expect(port.orders).toEqual([]);
    expect(g.done).toBe(true);
    expect(lines.join("\n")).toMatch(/no long ETH-PERP position/);
    expect((await port.positions())[0]!.szi).toBe("-2");
  });

  it("a refused close backs off instead of going out again on every price", async () => {
    const port = new FakePort({ ETH: 2000 });
    port.pos.set("ETH", { szi: dec(1), entry: dec(2000) });
    const alerts: string[] = [];
    const g = await StandaloneGuard.open({
      port,
      coin: "ETH",
      dir: dir(),
      preset: "tight",
      leverage: 10,
      alert: (t) => alerts.push(t),
    });
    port.refusals = ["Order price cannot be more than 80% away from the reference price"];
    await breach(port, g, 1990, 3); // the third breach sends the close: refused
    const sent = port.orders.length;
    expect(sent).toBe(1);
    expect(g.done).toBe(false);
    // Prices keep streaming within the back-off: no new order.
    for (let i = 0; i < 5; i++) await g.onPrice(1990);
    expect(port.orders.length).toBe(sent);
    expect(alerts.length).toBeGreaterThan(0);
    port.clock += 1_000;
    await g.onPrice(1990);
    expect(g.done).toBe(true);
  });
});

describe("hl dsl start alerts when it cannot read prices", () => {
  it("failing price polls are alerted once per outage (and their recovery), not only logged", async () => {
    const port = new FakePort({ ETH: 2000 });
    port.pos.set("ETH", { szi: dec(1), entry: dec(2000) });
    let failures = 3;
    const mids = port.mids.bind(port);
    port.mids = async () => {
      if (failures-- > 0) throw new Error("fetch failed");
      return mids();
    };
    const guard = await StandaloneGuard.open({
      port,
      coin: "ETH",
      dir: dir(),
      preset: "tight",
      leverage: 10,
    });
    const alerts: string[] = [];
    await runGuardLoop({
      guard,
      port,
      coin: "ETH",
      tickMs: 5_000,
      maxTicks: 6,
      signal: new AbortController().signal,
      log: () => undefined,
      alert: (t: string) => alerts.push(t),
      sleep: async (ms) => {
        port.clock += ms;
      },
    });
    expect(alerts).toHaveLength(2);
    expect(alerts[0]).toMatch(/ETH price poll failed/);
    expect(alerts[1]).toMatch(/ETH work again/);
  });
});

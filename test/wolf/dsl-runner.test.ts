import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { dec } from "../../src/core/decimal.ts";
import { listGuards } from "../../src/guard/store.ts";
import { givenEntry, StandaloneGuard } from "../../src/wolf/dsl-runner.ts";
import { FakePort } from "./fake-port.ts";

describe("standalone DSL guard (hl dsl start)", () => {
  it("guards an exchange position and closes it only when the reduce-only close filled", async () => {
    const port = new FakePort({ ETH: 2000 });
    port.pos.set("ETH", { szi: dec(2), entry: dec(2000) });
    const dir = mkdtempSync(join(tmpdir(), "dsl-"));
    const g = await StandaloneGuard.open({ port, coin: "ETH", dir, preset: "tight", leverage: 10 });
    expect(g.guard.config.direction).toBe("long");
    // absolute floor at −3 % ROE: 2000 × (1 − 0.003) = 1994
    expect(g.guard.config.phase1_absolute_floor).toBeCloseTo(1994, 6);
    expect(listGuards(dir).guards).toHaveLength(1);
    port.fillRatio = 0; // the first close attempt does not fill
    for (let i = 0; i < 3; i++) {
      port.clock += 11_000;
      port.prices.set("ETH", 1990);
      await g.onPrice(1990);
    }
    expect(g.done).toBe(false);
    expect(port.orders.at(-1)).toMatchObject({ side: "sell", reduceOnly: true, size: "2" });
    port.fillRatio = 1;
    port.clock += 11_000;
    await g.onPrice(1990);
    expect(g.done).toBe(true);
    expect(await port.positions()).toEqual([]);
    const saved = listGuards(dir).guards[0]!;
    expect(saved.state.closed).toBe(true);
    expect(saved.state.close_reason).toContain("Phase 1 close");
  });

  it("refuses when there is no position", async () => {
    const port = new FakePort({ ETH: 2000 });
    await expect(
      StandaloneGuard.open({
        port,
        coin: "ETH",
        dir: mkdtempSync(join(tmpdir(), "dsl-")),
        preset: "tight",
        leverage: 10,
      }),
    ).rejects.toThrow(/no open ETH-PERP position/);
  });
});

describe("hl dsl start keeps guarding through errors", () => {
  it("a transient network error during a close is logged and retried with back-off, not thrown", async () => {
    const port = new FakePort({ ETH: 2000 });
    port.pos.set("ETH", { szi: dec(1), entry: dec(2000) });
    let failures = 1;
    const ioc = port.ioc.bind(port);
    port.ioc = async (req) => {
      if (failures-- > 0) throw new Error("fetch failed: ECONNRESET");
      return ioc(req);
    };
    const lines: string[] = [];
    const alerts: string[] = [];
    const g = await StandaloneGuard.open({
      port,
      coin: "ETH",
      dir: mkdtempSync(join(tmpdir(), "dsl-")),
      preset: "tight",
      leverage: 10,
      log: (l) => lines.push(l),
      alert: (t) => alerts.push(t),
    });
    let attempts = 0;
    for (let i = 0; i < 4 && !g.done; i++) {
      port.clock += 11_000;
      port.prices.set("ETH", 1990);
      await expect(g.onPrice(1990)).resolves.not.toThrow();
      attempts += 1;
    }
    expect(g.done).toBe(true);
    expect(attempts).toBeGreaterThan(1);
    expect(lines.join("\n")).toMatch(/ECONNRESET.*retrying/);
    expect(alerts).toHaveLength(1);
    expect(await port.positions()).toEqual([]);
  });
});

describe("hl dsl start on a market the exchange halted", () => {
  it("keeps guarding, alerts once, and asks again once a minute instead of every second", async () => {
    const port = new FakePort({ ETH: 2000 });
    port.pos.set("ETH", { szi: dec(1), entry: dec(2000) });
    port.refusals = Array.from({ length: 10 }, () => "Trading is halted.");
    const lines: string[] = [];
    const alerts: string[] = [];
    const g = await StandaloneGuard.open({
      port,
      coin: "ETH",
      dir: mkdtempSync(join(tmpdir(), "dsl-halted-")),
      preset: "tight",
      leverage: 10,
      log: (l) => lines.push(l),
      alert: (t) => alerts.push(t),
    });
    const closes = () => port.orders.filter((o) => o.reduceOnly).length;
    // Prices every 5 s for a minute: one close, refused; none again before the minute is up.
    for (let i = 0; i < 12; i++) {
      port.clock += 5_000;
      await g.onPrice(1990);
    }
    expect(closes()).toBe(1);
    expect(g.done).toBe(false);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatch(/halted trading in ETH-PERP/);
    port.refusals = [];
    port.clock += 60_000;
    await g.onPrice(1990);
    expect(g.done).toBe(true);
  });
});

describe("hl dsl start after a restart", () => {
  it("resumes the saved guard of the same position, ratchet intact, instead of starting over at entry", async () => {
    const port = new FakePort({ ETH: 2000 });
    port.pos.set("ETH", { szi: dec(1), entry: dec(2000) });
    const dir = mkdtempSync(join(tmpdir(), "dsl-"));
    const first = await StandaloneGuard.open({ port, coin: "ETH", dir, preset: "tight", leverage: 10 });
    port.clock += 60_000;
    await first.onPrice(2100);
    const hw = first.guard.state.high_water;
    expect(hw).toBe(2100);
    port.clock += 60_000;
    const again = await StandaloneGuard.open({ port, coin: "ETH", dir, preset: "tight", leverage: 10 });
    expect(again.guard.state.position_id).toBe(first.guard.state.position_id);
    expect(again.guard.state.high_water).toBe(hw);
    expect(listGuards(dir).guards).toHaveLength(1);
  });
});

describe("hl dsl start -e/-s/-d --dry-run", () => {
  it("guards a given entry with no exchange position, and a dry run sends no order", async () => {
    const port = new FakePort({ ETH: 2000 });
    const dir = mkdtempSync(join(tmpdir(), "dsl-given-"));
    const lines: string[] = [];
    const given = givenEntry({ entry: "2000", size: "1.5", direction: "short" })!;
    const g = await StandaloneGuard.open({
      port,
      coin: "ETH",
      dir,
      preset: "tight",
      leverage: 10,
      given,
      dryRun: true,
      log: (l) => lines.push(l),
    });
    expect(g.guard.config.direction).toBe("short");
    expect(g.guard.state.position_size).toBe("1.5");
    for (let i = 0; i < 4 && !g.done; i++) {
      port.clock += 11_000;
      await g.onPrice(2010); // −5 % ROE on a short at 10×: through the floor
    }
    expect(g.done).toBe(true);
    expect(port.orders).toEqual([]);
    expect(lines.some((l) => /^dry run: would close 1\.5 at 2010 .*no order sent$/.test(l))).toBe(true);
    expect(listGuards(dir).guards[0]!.state.closed).toBe(true);
  });

  it("-e, -s and -d come together, with valid values", () => {
    expect(givenEntry({})).toBeUndefined();
    expect(() => givenEntry({ entry: "2000" })).toThrow(/all of -e PRICE, -s SIZE and -d/);
    expect(() => givenEntry({ entry: "x", size: "1", direction: "long" })).toThrow(/-e must be/);
    expect(() => givenEntry({ entry: "1", size: "-1", direction: "long" })).toThrow(/-s must be/);
    expect(() => givenEntry({ entry: "1", size: "1", direction: "up" })).toThrow(/-d must be long or short/);
  });
});

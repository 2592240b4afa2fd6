import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { dec } from "../../src/core/decimal.ts";
import { loadGuard } from "../../src/guard/store.ts";
import { buildWolfConfig } from "../../src/wolf/config.ts";
import type { ExchangePosition } from "../../src/wolf/port.ts";
import { WolfRunner } from "../../src/wolf/runner.ts";
import { dslDir, statePath, type WolfState } from "../../src/wolf/state.ts";
import { FakePort } from "./fake-port.ts";

/**
 * What a (re)started WOLF run does before its first state write, and what it leaves for later: the
 * first state on disk is reconciled with the exchange and every open slot in it is guarded, with the
 * price stream already asked for; the smart-money poll (a request per followed wallet, slow on the
 * real exchange) is not waited for.
 */

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A port whose followed wallets answer only when released, recording the order of calls. */
class SlowWhalesPort extends FakePort {
  calls: string[] = [];
  private release: (() => void) | undefined;
  private readonly answered = new Promise<void>((r) => {
    this.release = r;
  });

  releaseWhales(): void {
    this.release?.();
  }

  override async walletPositions(address: string) {
    this.calls.push("walletPositions");
    await this.answered;
    return super.walletPositions(address);
  }

  override async positions(): Promise<ExchangePosition[]> {
    this.calls.push("positions");
    return super.positions();
  }

  override async subscribeMids(
    l: (m: Record<string, string>) => void,
    onFailure?: (reason: string) => void,
  ): Promise<() => Promise<void>> {
    this.calls.push("subscribeMids");
    return super.subscribeMids(l, onFailure);
  }
}

const within = <T>(p: Promise<T>, ms: number, what: string): Promise<T> =>
  Promise.race([
    p,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms),
    ),
  ]);

describe("WOLF start-up", () => {
  it("writes its first state reconciled and guarded without waiting for the smart-money poll; the first tick seeds it", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "wolf-start-"));
    dirs.push(dataDir);
    const port = new SlowWhalesPort({ ETH: 2500, SOL: 100 });
    port.whales.set("0xw", [{ coin: "SOL", szi: -1000, entry_px: 100 }]);
    // A position the state does not know yet (opened while the previous run was down).
    port.pos.set("ETH", { szi: dec("2"), entry: dec("2500") });
    const config = buildWolfConfig(
      "default",
      {},
      {
        candle_refresh_s: 0,
        smart_money_enabled: true,
        smart_money_addresses: ["0xw"],
        smart_money_poll_interval_ticks: 1,
        movers_immediate_auto_entry: false,
      },
    );
    const runner = await within(
      WolfRunner.open({ port, dataDir, preset: "default", config, log: () => undefined }),
      2_000,
      "start-up while a followed wallet has not answered",
    );

    // The first state on disk: the exchange's position adopted into a slot, with its guard file.
    const first = JSON.parse(readFileSync(statePath(dataDir), "utf8")) as WolfState;
    const slot = first.slots.find((s) => s.coin === "ETH");
    expect(slot).toMatchObject({
      status: "active",
      side: "long",
      entry_size: "2",
      entry_source: "reconciled",
    });
    expect(loadGuard(dslDir(dataDir), slot!.dsl_position_id).kind).toBe("ok");
    // Protection first: the stream was asked for before the exchange's positions.
    expect(port.calls.indexOf("subscribeMids")).toBeGreaterThanOrEqual(0);
    expect(port.calls.indexOf("subscribeMids")).toBeLessThan(port.calls.indexOf("positions"));
    // The stop is live before the poll answers: a crash through the floor closes at once.
    port.setPrice("ETH", 2000);
    await within(runner.settled(), 2_000, "the stream close");
    expect(runner.state.slots.find((s) => s.coin === "ETH")).toBeUndefined();

    // The first tick waits for the start-up poll, which only seeds: the whale's SOL short is not new.
    port.releaseWhales();
    await runner.tick();
    expect(runner.state.slots.every((s) => s.status === "empty")).toBe(true);
    await runner.close();
  });
});

describe("WOLF's price stream per coin", () => {
  it("a guarded coin silent on the stream while it moves is saved in price_stream_coins (read by /health)", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "wolf-silent-"));
    dirs.push(dataDir);
    const port = new FakePort({ ETH: 2500, SOL: 100 });
    port.pos.set("ETH", { szi: dec("1"), entry: dec("2500") });
    port.pos.set("SOL", { szi: dec("10"), entry: dec("100") });
    const config = buildWolfConfig(
      "default",
      {},
      { candle_refresh_s: 0, movers_immediate_auto_entry: false },
    );
    const runner = await WolfRunner.open({
      port,
      dataDir,
      preset: "default",
      config,
      log: () => undefined,
      feed: { pollMs: 50, silenceMs: 150 },
    });
    let eth = 2500;
    const beat = setInterval(() => {
      eth += 0.5;
      port.setPrice("ETH", eth);
    }, 30);
    try {
      port.prices.set("SOL", 99.5); // moves, but the stream says nothing for SOL
      const saved = () =>
        (JSON.parse(readFileSync(statePath(dataDir), "utf8")) as WolfState).price_stream_coins;
      const end = Date.now() + 3_000;
      while (JSON.stringify(saved()) !== '["SOL"]' && Date.now() < end)
        await new Promise((r) => setTimeout(r, 25));
      expect(saved()).toEqual(["SOL"]);
      expect(runner.state.price_stream).toBe("degraded");
    } finally {
      clearInterval(beat);
      await runner.close();
    }
  });
});

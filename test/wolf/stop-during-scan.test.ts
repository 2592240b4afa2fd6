import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readStopSignal } from "../../src/exchange/stoppable-reads.ts";
import { buildWolfConfig } from "../../src/wolf/config.ts";
import { WolfRunner } from "../../src/wolf/runner.ts";
import { loadWolfState } from "../../src/wolf/state.ts";
import { FakePort } from "./fake-port.ts";

const quiet = (l: string) => (process.env.WOLF_TEST_LOG ? console.log(l) : undefined);

/**
 * A fake exchange whose market scan waits until released, as a read waits for its request weight on
 * the real one; like the real transport, it gives the read up once the caller's stop signal aborts.
 */
class WaitingScanPort extends FakePort {
  private gate: Promise<void> = new Promise((r) => {
    this.release = r;
  });
  release: () => void = () => undefined;
  scanning = false;

  override async markets() {
    this.scanning = true;
    const stop = readStopSignal();
    const given = new Promise<never>((_, reject) => {
      stop?.addEventListener("abort", () => reject(new Error("markets given up: stopping")), { once: true });
    });
    await Promise.race([this.gate, given]);
    return super.markets();
  }
}

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c();
});

describe("stopping WOLF while its tick waits for a scan", () => {
  it("the tick stops waiting at once (not after the 10 s it gives a scan) and the run ends with its state saved", async () => {
    const port = new WaitingScanPort({ ETH: 2500, SOL: 100, BTC: 60000 });
    const dataDir = mkdtempSync(join(tmpdir(), "wolf-stop-"));
    const config = buildWolfConfig("default", {}, { candle_refresh_s: 0 });
    const runner = await WolfRunner.open({ port, dataDir, preset: "default", config, log: quiet });
    cleanup.push(async () => {
      port.release();
      rmSync(dataDir, { recursive: true, force: true });
    });
    const stop = new AbortController();
    const run = runner.run({ maxTicks: 0, tickMs: 5_000, signal: stop.signal });
    for (let i = 0; i < 200 && !port.scanning; i++) await new Promise((r) => setTimeout(r, 5));
    expect(port.scanning).toBe(true);
    const asked = Date.now();
    stop.abort();
    const slow = new Promise<"still waiting">((r) => setTimeout(() => r("still waiting"), 3_000).unref());
    expect(await Promise.race([run.then(() => "stopped"), slow])).toBe("stopped");
    // Its scan's read was given up too: closing does not wait out the grace it gives a scan.
    await runner.close();
    expect(Date.now() - asked).toBeLessThan(1_500);
    expect(loadWolfState(dataDir)).toMatchObject({ kind: "ok", state: { tick_count: 1 } });
  });
});

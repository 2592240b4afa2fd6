import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { isInBackground } from "../../src/exchange/background.ts";
import { buildWolfConfig } from "../../src/wolf/config.ts";
import { WolfRunner } from "../../src/wolf/runner.ts";
import { FakePort } from "./fake-port.ts";

/** Records, per candle read, whether it was made as a background read. */
class RecordingPort extends FakePort {
  readonly reads: boolean[] = [];
  override async candles(...args: Parameters<FakePort["candles"]>) {
    this.reads.push(isInBackground());
    return super.candles(...args);
  }
}

it("WOLF's market scan reads its candles in the background (they wait for what the ticks leave)", async () => {
  const port = new RecordingPort({ ETH: 2500, SOL: 100, BTC: 60000 });
  const dataDir = mkdtempSync(join(tmpdir(), "wolf-scan-bg-"));
  try {
    const config = buildWolfConfig("default", {}, { candle_refresh_s: 0 });
    const runner = await WolfRunner.open({ port, dataDir, preset: "default", config, log: () => undefined });
    await runner.run({ maxTicks: 2, tickMs: 0 });
    await runner.close();
    expect(port.reads.length).toBeGreaterThan(0);
    expect(port.reads.every((b) => b)).toBe(true);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

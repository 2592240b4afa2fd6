import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { buildWolfConfig } from "../../src/wolf/config.ts";
import { WolfRunner } from "../../src/wolf/runner.ts";
import { loadWolfState } from "../../src/wolf/state.ts";
import { wolfStatus } from "../../src/wolf/status.ts";
import { FakePort } from "./fake-port.ts";

it("the first scan's progress is in the state (counted series), then ready with the scan's time and signals", async () => {
  const port = new FakePort({ ETH: 2500, SOL: 100, BTC: 60000 });
  const dataDir = mkdtempSync(join(tmpdir(), "wolf-scan-"));
  const config = buildWolfConfig("default", {}, { candle_refresh_s: 0 });
  const runner = await WolfRunner.open({ port, dataDir, preset: "default", config, log: () => undefined });
  expect(runner.state.scan).toEqual({
    phase: "first_scan",
    series_read: 0,
    series_total: 0,
    last_scan_ms: null,
    signals: 0,
  });
  // The exchange answers three candle requests, then holds the rest (as a spent weight budget does).
  const answered = 3;
  let calls = 0;
  let release!: () => void;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  const candles = port.candles.bind(port);
  port.candles = async (...a) => {
    if (++calls > answered) await gate;
    return candles(...a);
  };
  const tick = runner.tick();
  for (let i = 0; i < 100 && (runner.state.scan?.series_read ?? 0) < answered; i++)
    await new Promise((r) => setTimeout(r, 5));
  const during = wolfStatus(runner.state).scan!;
  expect(during.phase).toBe("first_scan");
  expect(during.series_read).toBe(answered);
  expect(during.series_total).toBeGreaterThan(answered);
  // The service reads the saved file: the progress is there too (saved with the first series counted).
  const saved = loadWolfState(dataDir);
  expect(saved.kind === "ok" && saved.state.scan?.phase).toBe("first_scan");
  expect(saved.kind === "ok" && saved.state.scan!.series_total).toBeGreaterThan(0);

  release();
  await tick;
  const after = wolfStatus(runner.state).scan!;
  expect(after.phase).toBe("ready");
  expect(after.series_read).toBe(after.series_total);
  expect(after.series_total).toBe(calls);
  expect(after.last_scan_ms).toBe(port.clock);
  expect(after.signals).toBe(0); // a flat market: nothing to enter
  const final = loadWolfState(dataDir);
  expect(final.kind === "ok" && final.state.scan?.phase).toBe("ready");
  await runner.close();

  // A restart scans again from empty caches: first_scan until its own first pass is done.
  const again = await WolfRunner.open({ port, dataDir, preset: "default", config, log: () => undefined });
  expect(again.state.scan?.phase).toBe("first_scan");
  await again.close();
});

import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { dec } from "../../src/core/decimal.ts";
import { keepRunningOnStrayErrors } from "../../src/core/process-guard.ts";
import { runGuardLoop } from "../../src/wolf/dsl-guard-loop.ts";
import { StandaloneGuard } from "../../src/wolf/dsl-runner.ts";
import { FakePort } from "./fake-port.ts";

describe("the hl dsl start loop", () => {
  it("keeps polling through failed polls (with back-off) and a failed stream, until the close", async () => {
    const port = new FakePort({ ETH: 2000 });
    port.pos.set("ETH", { szi: dec(1), entry: dec(2000) });
    let pollFailures = 2;
    const mids = port.mids.bind(port);
    port.mids = async () => {
      if (pollFailures-- > 0) throw new Error("fetch failed");
      return mids();
    };
    port.subscribeMids = async () => {
      throw new Error("WebSocket closed");
    };
    const guard = await StandaloneGuard.open({
      port,
      coin: "ETH",
      dir: mkdtempSync(join(tmpdir(), "dsl-loop-")),
      preset: "tight",
      leverage: 10,
    });
    port.prices.set("ETH", 1990);
    const waits: number[] = [];
    const lines: string[] = [];
    await runGuardLoop({
      guard,
      port,
      coin: "ETH",
      tickMs: 5_000,
      maxTicks: 20,
      signal: new AbortController().signal,
      log: (l) => lines.push(l),
      sleep: async (ms) => {
        waits.push(ms);
        port.clock += ms;
      },
    });
    expect(guard.done).toBe(true);
    expect(await port.positions()).toEqual([]);
    expect(waits.slice(0, 2)).toEqual([5_000, 5_000]);
    expect(lines.filter((l) => l.includes("poll failed"))).toHaveLength(2);
    expect(lines.some((l) => l.includes("polling only"))).toBe(true);
  });
});

describe("process-level handlers of trading commands", () => {
  it("log and alert a stray rejection instead of exiting, and can be removed", () => {
    const lines: string[] = [];
    const alerts: string[] = [];
    const before = process.listenerCount("unhandledRejection");
    const release = keepRunningOnStrayErrors({ log: (l) => lines.push(l), alert: (t) => alerts.push(t) });
    process.emit("unhandledRejection", new Error("socket hang up"), Promise.resolve());
    expect(lines[0]).toMatch(/unhandled rejection: socket hang up; still running/);
    expect(alerts).toHaveLength(1);
    release();
    expect(process.listenerCount("unhandledRejection")).toBe(before);
  });
});

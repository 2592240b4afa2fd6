import { describe, expect, it } from "vitest";
import type { RunResult } from "../../../src/engine/engine.ts";
import type { RunStrategyOptions } from "../../../src/engine/runner.ts";
import type { HostedSpec } from "../../../src/services/host/run.ts";
import { hostTraders, type TraderHostDeps } from "../../../src/services/host/traders.ts";

/**
 * `hl traders serve` (the house agents of `hl up` in one process): an engine that keeps stopping
 * is restarted with a back-off and given up on; the others keep trading. The engines here are
 * stand-ins on a fake clock, so a minute of back-off takes no time.
 */
const spec = (name: string): HostedSpec => ({
  name,
  args: ["run", "simple_mm", "-i", "ETH-PERP", "--tick", "1", "--network", "paper"],
  env: { DATA_DIR: `/tmp/traders-test/${name}` },
});

/** Which hosted trader an engine run belongs to, from the data directory it was given. */
const nameOf = (o: RunStrategyOptions) => o.dataDir.split("/").at(-2)!;

function stopped(stopReason: RunResult["stopReason"], haltReason?: string): RunResult {
  return { ticks: 1, tickCount: 1, stopReason, haltReason } as RunResult;
}

/** A host context that keeps what it prints, and a fake clock the stand-in engines move on. */
function harness() {
  const logs: string[] = [];
  const warnings: string[] = [];
  const waits: number[] = [];
  let clock = 0;
  const deps: Required<Omit<TraderHostDeps, "run" | "alerter">> = {
    positionQty: () => 0,
    now: () => clock,
    wait: async (ms) => {
      waits.push(ms);
      clock += ms;
      await new Promise((r) => setImmediate(r));
    },
  };
  return {
    ctx: { env: {}, log: (l: string) => logs.push(l), warn: (l: string) => warnings.push(l) },
    deps,
    logs,
    warnings,
    waits,
    advance: (ms: number) => {
      clock += ms;
    },
  };
}

const until = async (cond: () => boolean) => {
  for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 2));
  expect(cond()).toBe(true);
};

describe("traders host: an engine that keeps stopping", () => {
  it("is restarted at once after an isolated stop, then 4 times with a growing back-off, and given up on at its 6th quick stop in a row", async () => {
    const h = harness();
    let starts = 0;
    const running = await hostTraders([spec("house-1")], h.ctx, {
      ...h.deps,
      run: async () => {
        starts += 1;
        h.advance(1_000);
        throw new Error("exchange unreachable");
      },
    });
    await until(() => h.warnings.some((w) => w.includes("gave up")));
    expect(starts).toBe(6);
    expect(h.waits).toEqual([2_000, 4_000, 8_000, 16_000]);
    expect(h.logs.filter((l) => l === "[house-1] restarting at once")).toHaveLength(1);
    expect(h.warnings.filter((w) => w === "[house-1] failed: exchange unreachable")).toHaveLength(6);
    expect(h.warnings.at(-1)).toBe("[house-1] keeps stopping; gave up (the other traders keep running)");
    await new Promise((r) => setTimeout(r, 20));
    expect(starts).toBe(6);
    await running.close();
  });

  it("leaves an engine that stopped itself on a risk hard stop stopped, and says why on the console", async () => {
    const h = harness();
    let starts = 0;
    const running = await hostTraders([spec("house-1")], h.ctx, {
      ...h.deps,
      run: async () => {
        starts += 1;
        h.advance(500);
        return stopped("halted", "hard drawdown 12.50");
      },
    });
    await until(() => h.warnings.some((w) => w.includes("risk hard stop")));
    await new Promise((r) => setTimeout(r, 20));
    expect(starts).toBe(1);
    expect(h.warnings).toEqual([
      "[house-1] risk hard stop: hard drawdown 12.50; stays stopped until it is started with --fresh",
    ]);
    await running.close();
  });

  it("starts counting again after a run of a minute or more", async () => {
    const h = harness();
    // 5 quick stops, one run of exactly 60 s, then quick stops until it gives up
    const durations = [1, 1, 1, 1, 1, 60_000, 1, 1, 1, 1, 1, 1, 1];
    let starts = 0;
    const running = await hostTraders([spec("house-1")], h.ctx, {
      ...h.deps,
      run: async () => {
        h.advance(durations[starts]!);
        starts += 1;
        throw new Error("boom");
      },
    });
    await until(() => h.warnings.some((w) => w.includes("gave up")));
    expect(starts).toBe(11);
    expect(h.waits).toEqual([2_000, 4_000, 8_000, 16_000, 2_000, 4_000, 8_000, 16_000]);
    await running.close();
  });

  it("closing during a back-off ends the wait, and the engine is not started again", async () => {
    const h = harness();
    let starts = 0;
    const running = await hostTraders([spec("house-1")], h.ctx, {
      ...h.deps,
      wait: (_ms, signal) => new Promise((resolve) => signal.addEventListener("abort", () => resolve())),
      run: async () => {
        starts += 1;
        throw new Error("boom");
      },
    });
    await until(() => h.logs.includes("[house-1] restarting in 2 s"));
    await running.close();
    expect(starts).toBe(2);
  });
});

describe("traders host: one engine failing", () => {
  it("leaves the others trading, unrestarted, until the host closes", async () => {
    const h = harness();
    const starts = new Map<string, number>();
    const ticks = new Map<string, number>();
    let aborted = 0;
    const trade = (o: RunStrategyOptions) =>
      new Promise<RunResult>((resolve) => {
        const name = nameOf(o);
        const timer = setInterval(() => {
          ticks.set(name, (ticks.get(name) ?? 0) + 1);
          o.log?.(`tick ${ticks.get(name)}`);
        }, 2);
        o.signal?.addEventListener("abort", () => {
          clearInterval(timer);
          aborted += 1;
          resolve(stopped("signal"));
        });
      });
    const running = await hostTraders([spec("house-1"), spec("house-2"), spec("house-3")], h.ctx, {
      ...h.deps,
      run: (o) => {
        const name = nameOf(o);
        starts.set(name, (starts.get(name) ?? 0) + 1);
        // house-2 fails at once, even before returning a promise
        if (name === "house-2") throw new Error("strategy blew up");
        return trade(o);
      },
    });
    await until(() =>
      h.warnings.includes("[house-2] keeps stopping; gave up (the other traders keep running)"),
    );
    const before = { one: ticks.get("house-1") ?? 0, three: ticks.get("house-3") ?? 0 };
    await until(
      () => (ticks.get("house-1") ?? 0) > before.one + 3 && (ticks.get("house-3") ?? 0) > before.three + 3,
    );
    expect(Object.fromEntries(starts)).toEqual({ "house-1": 1, "house-2": 6, "house-3": 1 });
    expect(h.warnings.filter((w) => !w.startsWith("[house-2]"))).toEqual([]);
    expect(h.logs.some((l) => l.startsWith("[house-1] tick "))).toBe(true);
    expect(h.logs.some((l) => l.startsWith("[house-3] tick "))).toBe(true);
    await running.close();
    expect(aborted).toBe(2);
    expect(h.logs.filter((l) => l.includes("stopped ("))).toEqual([]);
  });

  it("given up on while it holds a position: protect-only, the engine runs again with entries disabled until the position is gone", async () => {
    const h = harness();
    const runs: boolean[] = [];
    const alerts: string[] = [];
    let held = 2;
    const running = await hostTraders([spec("house-1")], h.ctx, {
      ...h.deps,
      positionQty: () => held,
      alerter: { send: (e, t) => void alerts.push(`${e}: ${t}`), flush: async () => undefined },
      run: async (o) => {
        runs.push(o.entriesDisabled === true);
        if (runs.length === 8) held = 0; // the protect-only engine closed it
        throw new Error("exchange unreachable");
      },
    });
    await until(() => h.warnings.some((w) => w.includes("protect-only: position closed")));
    await running.close();
    // 6 quick stops, then protect-only runs (entries disabled) until the position is gone
    expect(runs).toEqual([false, false, false, false, false, false, true, true]);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatch(
      /^protect_only: \[house-1\] simple_mm ETH-PERP · traders-test\/house-1 keeps stopping; protect-only: position 2/,
    );
    expect(h.waits.slice(-1)).toEqual([30_000]);
  });

  it("given up on with no position: alerted as gave_up, nothing more runs", async () => {
    const h = harness();
    let runs = 0;
    const alerts: string[] = [];
    const running = await hostTraders([spec("house-1")], h.ctx, {
      ...h.deps,
      alerter: { send: (e, t) => void alerts.push(`${e}: ${t}`), flush: async () => undefined },
      run: async () => {
        runs++;
        throw new Error("boom");
      },
    });
    await until(() => h.warnings.some((w) => w.includes("gave up")));
    await running.close();
    expect(runs).toBe(6);
    expect(alerts).toEqual([
      "gave_up: [house-1] simple_mm ETH-PERP · traders-test/house-1 keeps stopping; gave up; it holds no position",
    ]);
  });
});

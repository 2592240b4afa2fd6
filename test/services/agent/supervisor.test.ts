import { afterEach, describe, expect, it, vi } from "vitest";
import { Supervisor } from "../../../src/services/agent/supervisor.ts";
import { FAKE_CHILD, tempDataDir, waitFor } from "./helpers.ts";

/** A job that writes one state and exits with code 3 after `ticks` ticks of `tickMs`. */
function crashingJob(ticks: number, tickMs = 10) {
  return {
    args: [],
    entry: FAKE_CHILD,
    env: {
      ...process.env,
      DATA_DIR: tempDataDir(),
      TICK_MS: String(tickMs),
      EXIT_AFTER: String(ticks),
      EXIT_CODE: "3",
    },
    stdio: "ignore" as const,
    stopTimeoutMs: 2000,
  };
}

let supervisors: Supervisor[] = [];
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(supervisors.map((s) => s.stop()));
  supervisors = [];
});

describe("trading job supervisor", () => {
  it("restarts at once after an isolated crash (default back-off), well within 1 s", async () => {
    const sup = new Supervisor(crashingJob(2));
    supervisors.push(sup);
    let exitedAt = 0;
    let respawnedAt = 0;
    sup.on("exit", () => {
      if (exitedAt === 0) exitedAt = performance.now();
    });
    sup.on("restart", () => {
      if (respawnedAt === 0) respawnedAt = performance.now();
    });
    sup.start();
    await waitFor(() => (respawnedAt > 0 ? true : undefined), 5000);
    expect(respawnedAt - exitedAt).toBeLessThan(1000);
    expect(respawnedAt - exitedAt).toBeLessThan(250);
  });

  it("a crash after a healthy run counts as isolated again: restarted at once", async () => {
    const sup = new Supervisor({ ...crashingJob(6, 50), healthyAfterMs: 200 });
    supervisors.push(sup);
    const waits: number[] = [];
    sup.on("crash", (c: { restartInMs: number }) => waits.push(c.restartInMs));
    sup.start();
    await waitFor(() => (waits.length >= 3 ? true : undefined), 8000);
    expect(waits.slice(0, 3)).toEqual([0, 0, 0]);
  });

  it("caps the back-off at 30 s however many quick crashes come (default policy)", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    const sup = new Supervisor(crashingJob(1, 1));
    supervisors.push(sup);
    const waits: number[] = [];
    const restartIn: (number | null)[] = [];
    sup.on("crash", (c: { restartInMs: number }) => {
      waits.push(c.restartInMs);
      restartIn.push(sup.restartInS);
      // the job's restart is due: let the back-off elapse on the fake clock
      queueMicrotask(() => vi.advanceTimersByTime(c.restartInMs));
    });
    let gaveUp = false;
    sup.on("gave_up", () => {
      gaveUp = true;
    });
    sup.start();
    await vi.waitFor(() => expect(gaveUp).toBe(true), { timeout: 20_000, interval: 20 });
    expect(waits).toEqual([0, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000, 30_000]);
    expect(restartIn).toEqual([0, 1, 2, 4, 8, 16, 30, 30, 30, 30]);
    expect(sup.status).toBe("gave_up");
    expect(sup.restartInS).toBeNull();
  }, 30_000);

  it("reports no pending restart while the job runs", async () => {
    const sup = new Supervisor(crashingJob(1000, 100));
    supervisors.push(sup);
    sup.start();
    expect(sup.status).toBe("running");
    expect(sup.restartInS).toBeNull();
  });
});

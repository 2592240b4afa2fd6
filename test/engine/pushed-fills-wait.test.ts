import { describe, expect, it } from "vitest";
import { PushedFillsWait } from "../../src/engine/pushed-fills-wait.ts";

/** A promise and its resolver. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open: () => void = () => undefined;
  const promise = new Promise<void>((r) => {
    open = r;
  });
  return { promise, open };
}

const turn = () => new Promise((r) => setImmediate(r));

describe("the wait between ticks with pushed fills", () => {
  it("takes a push in at once, one run at a time, and ends only after the run under way, however the sleep ends", async () => {
    let push: () => void = () => undefined;
    let detached = false;
    const wait = new PushedFillsWait((listener) => {
      push = listener;
      return () => {
        detached = true;
      };
    });
    const sleep = gate();
    const run = gate();
    const log: string[] = [];
    let ended = false;
    const waiting = wait
      .wait(sleep.promise, async () => {
        log.push("start");
        await run.promise;
        log.push("end");
      })
      .then(() => {
        ended = true;
      });
    await turn();
    expect(log).toEqual([]);
    push();
    await turn();
    expect(log).toEqual(["start"]);
    // Two pushes during the run make one more run; the sleep ends meanwhile: the wait holds on.
    push();
    push();
    sleep.open();
    await turn();
    expect(ended).toBe(false);
    run.open();
    await waiting;
    // The sleep was over when the first run ended: the tick reads what the later pushes brought.
    expect(log).toEqual(["start", "end"]);
    // Pushes the wait did not take in (the tick reads them), like one during a tick, make a run as the
    // next wait begins: a fill pushed after the tick's last read is not left for the tick after.
    const runs: string[] = [];
    void wait.wait(new Promise(() => undefined), async () => {
      runs.push("run");
    });
    await turn();
    expect(runs).toEqual(["run"]);
    wait.close();
    expect(detached).toBe(true);
  });
});

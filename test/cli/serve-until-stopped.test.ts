import { describe, expect, it } from "vitest";
import { serveUntilStopped } from "../../src/cli/signals.ts";
import { inBackground } from "../../src/exchange/background.ts";
import { RateBudget } from "../../src/exchange/budget.ts";
import { ResilientTransport } from "../../src/exchange/transport.ts";

/**
 * Under `hl up`, Ctrl-C left the services process to be killed at its 10 s stop timeout: closing
 * waits for work in flight (an ISFR snapshot, a funding read), whose background reads waited for the
 * weight broker's grant behind WOLF's scan. A serve command now gives its reads up at the signal.
 */
describe("serveUntilStopped", () => {
  it("closes at once a service whose scheduled work waits for request weight", async () => {
    const budget = new RateBudget({ weightPerMinute: 100 });
    budget.charge(100); // the minute is spent: the next read would wait about 61 s
    // Nothing answers here: a read that got its weight would fail, and none must get it.
    const transport = new ResilientTransport({ apiUrl: "http://127.0.0.1:1", isTestnet: true, budget });
    let inFlight: Promise<unknown> = Promise.resolve();
    let readStarted = false;
    const start = async () => {
      // Scheduled work, as a service runs it: started from a timer, its reads behind the others.
      setTimeout(() => {
        readStarted = true;
        inFlight = inBackground(() =>
          transport.request("info", { type: "fundingHistory", coin: "ETH" }),
        ).catch(() => undefined);
      }, 10);
      return { close: () => inFlight.then(() => undefined) };
    };
    let signal: () => void = () => undefined;
    const stopped = new Promise<void>((r) => {
      signal = r;
    });
    const serving = serveUntilStopped(start, stopped);
    while (!readStarted) await new Promise((r) => setTimeout(r, 5));
    const asked = Date.now();
    signal();
    const slow = new Promise<"still closing">((r) => setTimeout(() => r("still closing"), 2_000).unref());
    expect(await Promise.race([serving.then(() => "closed"), slow])).toBe("closed");
    expect(Date.now() - asked).toBeLessThan(1_000);
  });
});

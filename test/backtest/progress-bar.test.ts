import { describe, expect, it } from "vitest";
import { ProgressBar, progressLine } from "../../src/backtest/progress-bar.ts";

describe("the CLI's progress bar", () => {
  it("draws nothing for the first second, then one line at most every 100 ms, and clears itself", () => {
    let now = 0;
    const out: string[] = [];
    const bar = new ProgressBar({ write: (t: string) => out.push(t), columns: 80 }, "candles", () => now);
    bar.update(10, 100);
    now = 999;
    bar.update(20, 100);
    expect(out).toEqual([]);
    now = 1_000;
    bar.update(30, 100);
    now = 1_050;
    bar.update(40, 100);
    expect(out).toHaveLength(1);
    expect(out[0]).toContain(" 30.0%  30/100 candles  1.0 s");
    now = 1_060;
    bar.update(100, 100); // the last one is always drawn
    bar.done();
    expect(out).toHaveLength(3);
    expect(out[2]).toBe("\r\x1b[K");
  });

  it("fits its line to the terminal (80 columns: a 38-wide bar beside the figures)", () => {
    expect(progressLine(262_800, 525_600, 1_500, "candles", 80)).toBe(
      `[${"#".repeat(19)}${"-".repeat(19)}]  50.0%  262,800/525,600 candles  1.5 s`,
    );
  });
});

import { describe, expect, it } from "vitest";
import { dexMarginPlan } from "../../src/exchange/dex-margin.ts";

describe("dexMarginPlan: what margins an order on a perp dex, and what a run must do first", () => {
  it("the main dex, and any dex under dex abstraction, is margined from the main perp balance", () => {
    expect(dexMarginPlan("", null, "0")).toBe("main");
    expect(dexMarginPlan("xyz", true, "0")).toBe("main");
  });

  it("a HIP-3 dex holding USDC of the account margins with it, whatever the mode", () => {
    expect(dexMarginPlan("xyz", null, "12.5")).toBe("dex");
    expect(dexMarginPlan("yex", false, "0.01")).toBe("dex");
  });

  it("a never-set account with nothing on the dex turns dex abstraction on; a user's standard mode is kept and refused", () => {
    expect(dexMarginPlan("yex", null, "0")).toBe("enable");
    // The refusal names the commands that fix it.
    expect(() => dexMarginPlan("yex", false, "0")).toThrow(
      "the account keeps each dex's USDC apart (dex abstraction off) and holds none on the yex dex: move USDC there (hl dex send AMOUNT --to yex) or turn dex abstraction on (hl dex abstraction on)",
    );
  });
});

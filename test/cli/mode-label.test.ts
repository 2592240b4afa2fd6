import { describe, expect, it } from "vitest";
import { modeLabel } from "../../src/cli/mode-label.ts";

describe("run mode label", () => {
  it("says LIVE only where real money is at stake", () => {
    expect(modeLabel("live", "paper")).toBe("PAPER (paper network, no real funds)");
    expect(modeLabel("live", "mainnet")).toBe("LIVE (mainnet)");
    expect(modeLabel("live", "testnet")).toBe("LIVE (testnet)");
    expect(modeLabel("mock", "paper")).toBe("MOCK (paper network)");
    expect(modeLabel("dry-run", "mainnet")).toBe("DRY RUN (mainnet market data)");
  });
});

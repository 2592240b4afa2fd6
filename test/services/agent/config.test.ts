import { describe, expect, it } from "vitest";
import { childArgs, readAgentConfig } from "../../../src/services/agent/config.ts";

describe("agent service: the trading child's command line", () => {
  it("passes --yes only when the deployment chose mainnet", () => {
    const base = { DATA_DIR: "/data" };
    const wolfMainnet = childArgs(readAgentConfig({ ...base, HL_NETWORK: "mainnet" }))!;
    expect(wolfMainnet.slice(0, 5)).toEqual(["wolf", "run", "--network", "mainnet", "--yes"]);
    // The predecessor's switch HL_TESTNET=false means mainnet as well.
    const legacy = childArgs(readAgentConfig({ ...base, RUN_MODE: "strategy", HL_TESTNET: "false" }))!;
    expect(legacy).toEqual(expect.arrayContaining(["run", "--network", "mainnet", "--yes"]));
    for (const network of ["testnet", "paper"]) {
      for (const mode of ["wolf", "strategy"]) {
        const args = childArgs(readAgentConfig({ ...base, RUN_MODE: mode, HL_NETWORK: network }))!;
        expect(args).toEqual(expect.arrayContaining(["--network", network]));
        expect(args).not.toContain("--yes");
      }
    }
  });
});

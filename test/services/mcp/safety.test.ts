import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { dec } from "../../../src/core/decimal.ts";
import {
  chooseNetwork,
  loadPolicy,
  reserveNotional,
  settleNotional,
} from "../../../src/services/mcp/safety.ts";

const root = mkdtempSync(join(tmpdir(), "mcp-safety-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const noKeys = { HL_AGENT_HOME: join(root, "home") };
const withKey = { ...noKeys, HL_PRIVATE_KEY: `0x${"1".repeat(64)}` };

describe("chooseNetwork", () => {
  it("mock and keyless calls run on paper, and say so", () => {
    expect(chooseNetwork({ mock: true, mainnet: true }, withKey, true)).toEqual({
      network: "paper",
      note: "mock: running on the paper network (sim world)",
    });
    expect(chooseNetwork({}, { ...noKeys, HL_NETWORK: "testnet" }, true)).toEqual({
      network: "paper",
      note: "No key configured: running on the paper network (sim world)",
    });
    expect(chooseNetwork({}, { ...noKeys, HL_NETWORK: "paper" }, true)).toEqual({ network: "paper" });
  });

  it("mainnet needs mainnet: true and confirm: true for order-placing tools, even when HL_NETWORK=mainnet", () => {
    const refuse = /Refusing mainnet/;
    expect(() => chooseNetwork({ mainnet: true }, withKey, true)).toThrow(refuse);
    expect(() => chooseNetwork({ confirm: true }, { ...withKey, HL_NETWORK: "mainnet" }, true)).toThrow(
      refuse,
    );
    expect(chooseNetwork({ mainnet: true, confirm: true }, withKey, true)).toEqual({ network: "mainnet" });
    // Reads need no confirmation.
    expect(chooseNetwork({ mainnet: true }, withKey, false)).toEqual({ network: "mainnet" });
    expect(() => chooseNetwork({ mainnet: true, confirm: true }, noKeys, true)).toThrow(
      /needs a configured key/,
    );
  });

  it("a key defaults to testnet unless HL_NETWORK says otherwise", () => {
    expect(chooseNetwork({}, withKey, true)).toEqual({ network: "testnet" });
    expect(chooseNetwork({}, { ...withKey, HL_NETWORK: "paper" }, true)).toEqual({ network: "paper" });
  });
});

describe("policy", () => {
  it("an absent policy is permissive; a bad file is a clear error", () => {
    expect(loadPolicy({})).toEqual({});
    expect(() => loadPolicy({ HL_MCP_POLICY: join(root, "missing.json") })).toThrow(/unreadable/);
  });

  it("the daily notional budget accumulates per UTC day and resets the next day", () => {
    const policy = { daily_notional_usd: 1000 };
    const day1 = Date.UTC(2026, 0, 1, 12);
    reserveNotional(policy, root, dec(600), day1);
    expect(() => reserveNotional(policy, root, dec(500), day1)).toThrow(
      /daily notional limit 1000 USD would be exceeded \(used 600.00, this order 500.00\)/,
    );
    reserveNotional(policy, root, dec(400), day1);
    reserveNotional(policy, root, dec(900), day1 + 86_400_000);
  });

  it("a settled reservation keeps only what traded; yesterday's reservation leaves today alone", () => {
    const dir = mkdtempSync(join(root, "settle-"));
    const policy = { daily_notional_usd: 1000 };
    const day1 = Date.UTC(2026, 0, 2, 12);
    const refused = reserveNotional(policy, dir, dec(700), day1)!;
    expect(() => reserveNotional(policy, dir, dec(400), day1)).toThrow(/used 700.00/);
    settleNotional(dir, refused, dec(0));
    const partial = reserveNotional(policy, dir, dec(800), day1)!;
    settleNotional(dir, partial, dec("250.5"));
    expect(() => reserveNotional(policy, dir, dec(750), day1)).toThrow(/used 250.50, this order 750.00/);
    const late = reserveNotional(policy, dir, dec(100), day1)!;
    reserveNotional(policy, dir, dec(50), day1 + 86_400_000);
    settleNotional(dir, late, dec(0));
    expect(() => reserveNotional(policy, dir, dec(960), day1 + 86_400_000)).toThrow(/used 50.00/);
  });
});

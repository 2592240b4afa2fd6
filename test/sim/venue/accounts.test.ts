import { describe, expect, it } from "vitest";
import { ALICE, BOB, BTC, BUILDER, CAROL, T0, testVenue } from "./helpers.ts";

const AGENT = "0xa9e0000000000000000000000000000000000a9e";

describe("builder fees", () => {
  it("stores approvals in tenths of a bp and lists approved builders", () => {
    const t = testVenue();
    expect(t.venue.info({ type: "maxBuilderFee", user: ALICE, builder: BUILDER })).toBe(0);
    expect(
      t.ex(ALICE, {
        type: "approveBuilderFee",
        maxFeeRate: "0.01%",
        builder: BUILDER.toUpperCase().replace("0X", "0x"),
        nonce: 1,
      }),
    ).toEqual({
      status: "ok",
      response: { type: "default" },
    });
    expect(t.venue.info({ type: "maxBuilderFee", user: ALICE, builder: BUILDER })).toBe(10);
    expect(t.venue.info({ type: "approvedBuilders", user: ALICE })).toEqual([BUILDER]);
    expect(
      t.ex(ALICE, { type: "approveBuilderFee", maxFeeRate: "0.1", builder: BUILDER, nonce: 2 }).status,
    ).toBe("err");
    expect(
      t.ex(ALICE, { type: "approveBuilderFee", maxFeeRate: "2%", builder: BUILDER, nonce: 2 }).status,
    ).toBe("err");
  });

  it("charges the builder fee to the user, credits the builder and lists it in the builder's fill file", () => {
    const t = testVenue();
    t.ex(ALICE, { type: "approveBuilderFee", maxFeeRate: "0.05%", builder: BUILDER, nonce: 1 });
    t.order(BOB, { a: BTC, b: false, p: "100000", s: "0.1" });
    t.clock.now = T0 + 3_723_000;
    expect(t.order(ALICE, { a: BTC, b: true, p: "100000", s: "0.1" }, { b: BUILDER, f: 50 })).toMatchObject({
      filled: {},
    });
    const [fill] = t.venue.info({ type: "userFills", user: ALICE }) as Record<string, unknown>[];
    // taker 0.045% of $10,000 = 4.5, builder 0.05% = 5: fee includes the builder fee.
    expect(fill).toMatchObject({ fee: "9.5", builderFee: "5" });
    const [bobFill] = t.venue.info({ type: "userFills", user: BOB }) as Record<string, unknown>[];
    expect(bobFill!.builderFee).toBeUndefined();
    expect(t.state(BUILDER).marginSummary.accountValue).toBe("100005");
    expect(t.venue.builderFills(BUILDER, "20261122")).toEqual([
      {
        time: "2026-11-22T01:02:03Z",
        user: ALICE,
        coin: "BTC",
        side: "Bid",
        px: "100000",
        sz: "0.1",
        crossed: true,
        special_trade_type: "Na",
        tif: "Gtc",
        is_trigger: false,
        counterparty: BOB,
        closed_pnl: "0",
        twap_id: "0",
        builder_fee: "5",
      },
    ]);
    expect(t.venue.builderFills(BUILDER, "20261123")).toEqual([]);
  });
});

describe("ledger", () => {
  it("records the starting balance, deposits, withdrawals and transfers", () => {
    const t = testVenue({ balance: "1000" });
    t.venue.deposit(ALICE, "250.5");
    t.clock.now += 1000;
    t.venue.withdraw(ALICE, "50");
    expect(() => t.venue.withdraw(ALICE, "5000")).toThrow(/Insufficient/);
    expect(t.ex(ALICE, { type: "usdSend", destination: BOB, amount: "100", time: 1 })).toEqual({
      status: "ok",
      response: { type: "default" },
    });
    expect(t.ex(ALICE, { type: "withdraw3", destination: ALICE, amount: "10", time: 2 })).toEqual({
      status: "ok",
      response: { type: "default" },
    });
    expect(t.ex(ALICE, { type: "usdSend", destination: BOB, amount: "1000000", time: 3 }).status).toBe("err");
    const ledger = t.venue.info({ type: "userNonFundingLedgerUpdates", user: ALICE }) as {
      time: number;
      hash: string;
      delta: Record<string, unknown>;
    }[];
    expect(ledger.map((u) => u.delta)).toEqual([
      { type: "deposit", usdc: "1000" },
      { type: "deposit", usdc: "250.5" },
      { type: "withdraw", usdc: "50", nonce: T0 + 1000, fee: "0" },
      { type: "internalTransfer", user: ALICE, destination: BOB, fee: "0", usdc: "100" },
      { type: "withdraw", usdc: "10", nonce: T0 + 1000, fee: "1" },
    ]);
    expect(ledger[0]!.hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(t.state(ALICE).withdrawable).toBe("1090.5");
    expect(t.state(BOB).marginSummary.accountValue).toBe("1100");
    const bobLedger = t.venue.info({ type: "userNonFundingLedgerUpdates", user: BOB, startTime: T0 + 1 }) as {
      delta: Record<string, unknown>;
    }[];
    expect(bobLedger.map((u) => u.delta.type)).toEqual(["deposit", "internalTransfer"]);
  });

  it("does not let withdrawals touch margin in use", () => {
    const t = testVenue({ balance: "1000" });
    t.order(ALICE, { a: BTC, b: true, p: "90000", s: "0.2" }); // holds $900 of margin at 20x
    expect(t.state(ALICE).withdrawable).toBe("100");
    expect(t.ex(ALICE, { type: "withdraw3", destination: ALICE, amount: "200", time: 2 }).status).toBe("err");
  });
});

describe("agents", () => {
  it("maps an approved agent to its master", () => {
    const t = testVenue();
    expect(t.venue.masterOf(AGENT)).toBeUndefined();
    expect(
      t.ex(ALICE, { type: "approveAgent", agentAddress: AGENT, agentName: "bot", nonce: 1 }).status,
    ).toBe("ok");
    expect(t.venue.masterOf(AGENT)).toBe(ALICE);
    expect(t.venue.masterOf(AGENT.toUpperCase().replace("0X", "0x") as `0x${string}`)).toBe(ALICE);
    expect(t.ex(CAROL, { type: "approveAgent", agentAddress: AGENT, nonce: 1 }).status).toBe("err");
    expect(t.ex(ALICE, { type: "approveAgent", agentAddress: ALICE, nonce: 1 }).status).toBe("err");
  });

  it("an agent's own address is an empty account, as live (docs: querying the agent is 'a common pitfall')", () => {
    const t = testVenue();
    t.state(ALICE);
    t.ex(ALICE, { type: "approveAgent", agentAddress: AGENT, agentName: "bot", nonce: 1 });
    const agent = t.state(AGENT);
    expect(Number(agent.marginSummary.accountValue)).toBe(0);
    expect(Number(agent.withdrawable)).toBe(0);
    expect(t.venue.info({ type: "userNonFundingLedgerUpdates", user: AGENT, startTime: 0 })).toEqual([]);
    expect(t.state(ALICE).marginSummary.accountValue).toBe("100000");
  });
});

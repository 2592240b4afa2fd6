import { describe, expect, it } from "vitest";
import { type DexState, paginateByTime, summarizeAccount } from "../../src/exchange/info.ts";

function state(
  accountValue: string,
  withdrawable: string,
  positions: { coin: string; szi: string }[],
): DexState["state"] {
  const summary = { accountValue, totalNtlPos: "100.5", totalRawUsd: accountValue, totalMarginUsed: "10.1" };
  return {
    marginSummary: summary,
    crossMarginSummary: summary,
    crossMaintenanceMarginUsed: "1",
    withdrawable,
    time: 0,
    assetPositions: positions.map((p) => ({
      type: "oneWay" as const,
      position: {
        coin: p.coin,
        szi: p.szi,
        leverage: { type: "cross" as const, value: 5 },
        entryPx: "1",
        positionValue: "1",
        unrealizedPnl: "0",
        returnOnEquity: "0",
        liquidationPx: null,
        marginUsed: "1",
        maxLeverage: 10,
        cumFunding: { allTime: "0", sinceOpen: "0", sinceChange: "0" },
      },
    })),
  };
}

describe("summarizeAccount", () => {
  it("sums value, withdrawable and margin over dexes in decimal (no float drift)", () => {
    const s = summarizeAccount("0x0000000000000000000000000000000000000001", [
      { dex: "", state: state("0.1", "0.1", [{ coin: "ETH", szi: "0.5" }]) },
      {
        dex: "yex",
        state: state("0.2", "0.2", [
          { coin: "yex:VXX", szi: "-3" },
          { coin: "yex:US3M", szi: "0.0" },
        ]),
      },
      { dex: "xyz", state: state("0", "0", [{ coin: "xyz:SPCX", szi: "1" }]) },
    ]);
    expect(s.accountValue).toBe("0.3");
    expect(s.withdrawable).toBe("0.3");
    expect(s.marginUsed).toBe("30.3");
    expect(s.totalNotional).toBe("301.5");
    expect(s.positions.map((p) => [p.dex, p.instrument, p.szi])).toEqual([
      ["", "ETH-PERP", "0.5"],
      ["yex", "VXX-USDYP", "-3"],
      ["xyz", "xyz:SPCX", "1"],
    ]);
  });
});

describe("paginateByTime", () => {
  const records = Array.from({ length: 4500 }, (_, i) => ({ id: i, time: 1000 + Math.floor(i / 3) }));
  const fetchPage = (pageSize: number, calls: number[]) => async (start: number) => {
    calls.push(start);
    return records.filter((r) => r.time >= start).slice(0, pageSize);
  };

  it("follows pages past the page size without duplicates or gaps", async () => {
    const calls: number[] = [];
    const all = await paginateByTime(
      fetchPage(2000, calls),
      0,
      2000,
      (r) => r.time,
      (r) => String(r.id),
    );
    expect(all.map((r) => r.id)).toEqual(records.map((r) => r.id));
    expect(calls.length).toBe(3);
  });

  it("stops on a short page", async () => {
    const calls: number[] = [];
    const all = await paginateByTime(
      fetchPage(500, calls),
      2400,
      500,
      (r) => r.time,
      (r) => String(r.id),
    );
    expect(all[0]?.time).toBe(2400);
    expect(all.at(-1)?.id).toBe(4499);
  });

  it("stops when a page brings nothing new (a whole page at one timestamp)", async () => {
    const same = Array.from({ length: 10 }, (_, i) => ({ id: i, time: 5 }));
    let calls = 0;
    const all = await paginateByTime(
      async () => {
        calls++;
        return same.slice(0, 5);
      },
      0,
      5,
      (r) => r.time,
      (r) => String(r.id),
    );
    expect(all).toHaveLength(5);
    expect(calls).toBe(2);
  });
});

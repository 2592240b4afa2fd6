import { describe, expect, it } from "vitest";
import { ALICE, testVenue } from "./helpers.ts";

const reserve = (t: ReturnType<typeof testVenue>, weight: unknown) =>
  t.ex(ALICE, { type: "reserveRequestWeight", weight });

describe("reserveRequestWeight", () => {
  it("charges 0.0005 USDC per request from the perp balance", () => {
    const t = testVenue({ balance: "10" });
    expect(reserve(t, 10_000)).toEqual({ status: "ok", response: { type: "default" } });
    expect(t.state(ALICE).marginSummary.accountValue).toBe("5");
    expect(t.state(ALICE).withdrawable).toBe("5");
    expect(reserve(t, 0).status).toBe("ok");
    expect(reserve(t, 1).status).toBe("ok");
    expect(t.state(ALICE).withdrawable).toBe("4.9995");
  });

  it("is refused beyond what the perp balance can pay, and for a weight that is not a whole number", () => {
    const t = testVenue({ balance: "1" });
    expect(reserve(t, 2_001)).toEqual({
      status: "err",
      response: "Insufficient balance to reserve request weight.",
    });
    expect(reserve(t, 1_844_674_407_370_955)).toMatchObject({ status: "err" });
    expect(t.state(ALICE).withdrawable).toBe("1");
    for (const weight of [-1, 1.5, "10", null])
      expect(reserve(t, weight)).toEqual({ status: "err", response: "Invalid reserveRequestWeight action." });
    expect(reserve(t, 2_000).status).toBe("ok");
    expect(t.state(ALICE).withdrawable).toBe("0");
  });
});

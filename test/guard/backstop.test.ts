import { describe, expect, it } from "vitest";
import {
  backstopChange,
  backstopCloid,
  backstopTriggerPx,
  DEFAULT_BACKSTOP,
  isBackstopCloid,
  priceTick,
} from "../../src/guard/backstop.ts";

describe("backstop decisions", () => {
  it("rests beyond the tighter of the stops by the margin, on the price grid, rounded away from the market", () => {
    // Long: the higher stop (99.5) minus 0.5 % = 99.0025 → 99.002 (5 significant figures, down).
    expect(backstopTriggerPx("long", [99.5, 95], 0.5, 2)).toBe("99.002");
    // Short: the lower stop (100.5) plus 0.5 % = 101.0025 → 101.01 (up).
    expect(backstopTriggerPx("short", [100.5, 105], 0.5, 2)).toBe("101.01");
    expect(backstopTriggerPx("long", [0, Number.NaN], 0.5, 2)).toBeUndefined();
  });

  it("has a cloid derived from what it guards, tagged by owner", () => {
    const a = backstopCloid("wolf", "wolf-0-1");
    expect(a).toMatch(/^0x[0-9a-f]{32}$/);
    expect(backstopCloid("wolf", "wolf-0-1")).toBe(a);
    expect(backstopCloid("wolf", "wolf-0-2")).not.toBe(a);
    expect(isBackstopCloid("wolf", a)).toBe(true);
    expect(isBackstopCloid("dsl", a)).toBe(false);
    expect(isBackstopCloid("wolf", "0x0123456789abcdef0123456789abcdef")).toBe(false);
  });

  it("is modified for a size change at once, for a floor move only after enough ticks and time, never looser", () => {
    const resting = { triggerPx: "2000", size: "1", updatedMs: 0 };
    const s = DEFAULT_BACKSTOP; // 10 ticks, 60 s
    expect(priceTick("2000", 2).toString()).toBe("0.1");
    expect(backstopChange("long", resting, { triggerPx: "2000", size: "0.5" }, s, 2, 1)).toEqual({
      kind: "modify",
      why: "size",
    });
    expect(backstopChange("long", resting, { triggerPx: "2000.9", size: "1" }, s, 2, 120_000).kind).toBe(
      "keep",
    );
    expect(backstopChange("long", resting, { triggerPx: "2001", size: "1" }, s, 2, 59_999).kind).toBe("keep");
    expect(backstopChange("long", resting, { triggerPx: "2001", size: "1" }, s, 2, 60_000)).toEqual({
      kind: "modify",
      why: "ratchet",
    });
    expect(backstopChange("long", resting, { triggerPx: "1990", size: "1" }, s, 2, 120_000).kind).toBe(
      "keep",
    );
    expect(backstopChange("short", resting, { triggerPx: "1999", size: "1" }, s, 2, 120_000).kind).toBe(
      "modify",
    );
  });
});

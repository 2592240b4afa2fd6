import { expect, it } from "vitest";
import { buildWolfConfig } from "../../src/wolf/config.ts";
import { freshState } from "../../src/wolf/state.ts";
import { wolfStatus } from "../../src/wolf/status.ts";

it("/api/status (and MCP wolf_status) show each open slot's exchange stop as an added field", () => {
  const state = freshState("default", buildWolfConfig("default", {}, {}), Date.parse("2026-11-27T06:00:00Z"));
  const [a, b] = state.slots;
  Object.assign(a!, { status: "active", coin: "ETH", instrument: "ETH-PERP", side: "long" });
  a!.backstop = { status: "resting", cloid: "0xa", oid: 7, triggerPx: "3120.5", size: "0.5", updatedMs: 1 };
  Object.assign(b!, { status: "closing", coin: "SOL", instrument: "SOL-PERP", side: "short" });
  b!.backstop = {
    status: "refused",
    cloid: "0xb",
    oid: null,
    triggerPx: "250",
    size: "3",
    updatedMs: 2,
    message: "trigger beyond the price band",
  };
  const slots = wolfStatus(state).active_slots;
  expect(slots.map((s) => s.backstop)).toEqual([
    { status: "resting", trigger_px: 3120.5, size: 0.5, oid: 7, cloid: "0xa", updated_ms: 1 },
    {
      status: "refused",
      trigger_px: 250,
      size: 3,
      oid: null,
      cloid: "0xb",
      updated_ms: 2,
      message: "trigger beyond the price band",
    },
  ]);
  // the contract's fields are unchanged
  expect(Object.keys(slots[0]!)).toEqual(expect.arrayContaining(["slot_id", "instrument", "side", "status"]));
  expect(slots[0]!.status).toBe("active");
});

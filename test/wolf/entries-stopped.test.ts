import { describe, expect, it } from "vitest";
import { noEngineStateLine, statusFromKv } from "../../src/engine/status.ts";
import { buildWolfConfig } from "../../src/wolf/config.ts";
import { freshState } from "../../src/wolf/state.ts";
import { wolfStatus, wolfStatusText } from "../../src/wolf/status.ts";

/** "Entries stopped" in the status object (/api/status, SSE, MCP wolf_status), not only in the text. */
describe("entries stopped", () => {
  it("WOLF's daily loss limit: the reason and until when (the next UTC day)", () => {
    const config = buildWolfConfig("default", {}, {});
    const state = freshState("default", config, Date.parse("2026-11-27T06:00:00Z"));
    expect(wolfStatus(state).entries_stopped).toBeNull();
    state.daily_pnl = "-512.40";
    state.daily_loss_triggered = true;
    expect(wolfStatus(state).entries_stopped).toEqual({
      reason: "daily_loss_limit",
      detail: `daily PnL -512.40 reached the limit of -${config.daily_loss_limit}`,
      until: "2026-11-28T00:00:00.000Z",
    });
    expect(wolfStatusText(state)).toContain("entries stopped until 2026-11-28T00:00:00.000Z");
  });

  it("a strategy engine's risk hard stop and reduce-only mode", () => {
    const kv = (risk: unknown) => ({
      tick_count: "3",
      strategy_id: '"simple_mm"',
      instrument: '"ETH-PERP"',
      risk: JSON.stringify({ state: risk }),
    });
    expect(statusFromKv(kv({ halted: false, reduce_only: false, reasons: [] }))).toMatchObject({
      entries_stopped: null,
    });
    expect(
      statusFromKv(kv({ halted: true, halt_reason: "hard drawdown 12.50", reduce_only: true, reasons: [] })),
    ).toMatchObject({
      entries_stopped: { reason: "risk_hard_stop", detail: "hard drawdown 12.50", until: null },
    });
    expect(
      statusFromKv(kv({ halted: false, reduce_only: true, reasons: ["daily loss 60.00"] })),
    ).toMatchObject({
      entries_stopped: { reason: "reduce_only", detail: "daily loss 60.00", until: null },
    });
  });
});

describe("hl status with no strategy engine state", () => {
  it("points at `hl wolf status` when the directory's agent runs WOLF, instead of asking whether it runs", () => {
    expect(noEngineStateLine("/d/agent", { wolf: true })).toBe(
      "No strategy engine state in /d/agent/cli: the agent here runs WOLF (hl wolf status --data-dir /d/agent).",
    );
    expect(noEngineStateLine("/d", { wolf: false })).toBe(
      "No strategy engine state in /d/cli. Start one with: hl run STRATEGY --network paper",
    );
  });
});

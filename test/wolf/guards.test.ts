import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadGuard } from "../../src/guard/store.ts";
import { buildWolfConfig } from "../../src/wolf/config.ts";
import { SlotGuards } from "../../src/wolf/guards.ts";
import { emptySlot, type Slot } from "../../src/wolf/state.ts";

const T0 = Date.UTC(2026, 0, 5, 12);

function slot(): Slot {
  return {
    ...emptySlot(0),
    status: "active",
    instrument: "ETH-PERP",
    coin: "ETH",
    side: "long",
    entry_price: "2000",
    entry_size: "1",
    leverage: 10,
    opened_at_ms: T0,
    dsl_phase: 1,
    dsl_position_id: `wolf-0-${T0}`,
  };
}

function setup() {
  const dir = mkdtempSync(join(tmpdir(), "guards-"));
  const lines: string[] = [];
  const guards = new SlotGuards(dir, buildWolfConfig("default", {}, {}), (l) => lines.push(l));
  return { dir, guards, lines };
}

describe("guard files survive damage", () => {
  it("a corrupt guard file is restored from its last-good copy, ratchet intact", () => {
    const { dir, guards } = setup();
    const s = slot();
    guards.create(s, T0);
    guards.evaluate(0, 2100, T0 + 60_000); // +50 % ROE: the high water moves up and a tier locks
    guards.persistAll();
    const saved = guards.get(0)!.state;
    writeFileSync(join(dir, `${s.dsl_position_id}.json`), "{ torn");
    const restored = new SlotGuards(dir, buildWolfConfig("default", {}, {}), () => {}).restore(
      s,
      T0 + 120_000,
    );
    expect(restored.state.high_water).toBe(saved.high_water);
    expect(restored.state.tier_index).toBe(saved.tier_index);
  });

  it("with nothing left on disk, the stop is rebuilt from entry, the slot's saved ratchet and the prices since: never looser", () => {
    const { dir, guards, lines } = setup();
    const s = { ...slot(), high_water_roe: 40, dsl_tier: 1 };
    guards.create(s, T0);
    rmSync(join(dir, `${s.dsl_position_id}.json`), { force: true });
    rmSync(join(dir, `${s.dsl_position_id}.json.bak`), { force: true });
    const rebuilt = new SlotGuards(dir, buildWolfConfig("default", {}, {}), (l) => lines.push(l)).restore(
      s,
      T0 + 120_000,
      [2010, 2090, 2050],
    );
    // 40 % ROE at 10× = +4 % → 2080; the recorded 2090 is higher still
    expect(rebuilt.state.high_water).toBe(2090);
    expect(rebuilt.state.tier_index).toBeGreaterThanOrEqual(1);
    expect(lines.join("\n")).toMatch(/rebuilt/);
    expect(loadGuard(dir, s.dsl_position_id).kind).toBe("ok");
  });
});

describe("a rebuilt guard keeps what the position was opened with", () => {
  it("its breach count, and the preset and leverage of the opening, not today's config", () => {
    const dir = mkdtempSync(join(tmpdir(), "guards-"));
    const opened = buildWolfConfig("default", {}, { dsl_preset: "tight" });
    const guards = new SlotGuards(dir, opened, () => {});
    const s0 = { ...slot(), ...guards.openedWith(slot()) };
    guards.create(s0, T0);
    // Two breaches of the phase-1 floor (tight: 5 % retrace of the high water, 3 needed).
    const r1 = guards.evaluate(0, 1890, T0 + 10_000)!;
    const r2 = guards.evaluate(0, 1890, T0 + 20_000)!;
    expect(r2.state.breach_count).toBe(2);
    const s = { ...s0, dsl_breaches: r2.state.breach_count, dsl_tier: r1.tier_index };
    rmSync(join(dir, `${s.dsl_position_id}.json`), { force: true });
    rmSync(join(dir, `${s.dsl_position_id}.json.bak`), { force: true });
    // Since the opening, the config moved on: another preset, another leverage for the DSL.
    const today = buildWolfConfig("default", {}, { dsl_preset: "moderate", dsl_leverage_override: 3 });
    const rebuilt = new SlotGuards(dir, today, () => {}).restore(s, T0 + 30_000);
    expect(rebuilt.config.phase1_retrace).toBe(0.05); // tight's, not moderate's 0.03
    expect(rebuilt.config.leverage).toBe(10);
    expect(rebuilt.state.breach_count).toBe(2);
  });
});

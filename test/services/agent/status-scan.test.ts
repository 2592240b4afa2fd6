import { expect, it } from "vitest";
import { StatusReader } from "../../../src/services/agent/status-reader.ts";
import { agentMappers } from "../../../src/services/agent/wiring.ts";
import { buildWolfConfig } from "../../../src/wolf/config.ts";
import { freshState, saveWolfState } from "../../../src/wolf/state.ts";
import { tempDataDir } from "./helpers.ts";

it("/api/status carries WOLF's scan progress as the trader saved it, and null for a state without one", async () => {
  const dir = tempDataDir();
  const state = freshState("default", buildWolfConfig("default", {}, {}), 1_700_000_000_000);
  saveWolfState(dir, state);
  const reader = new StatusReader(dir, "wolf", await agentMappers("wolf"), () => true);
  expect(JSON.parse(reader.statusJson().toString()).scan).toBeNull();

  const scan = {
    phase: "first_scan",
    series_read: 37,
    series_total: 120,
    last_scan_ms: null,
    signals: 0,
  } as const;
  saveWolfState(dir, { ...state, tick_count: 1, scan });
  await new Promise((r) => setTimeout(r, 300)); // past the reader's stat interval, whatever fs.watch does
  const body = JSON.parse(reader.statusJson().toString());
  expect(body).toMatchObject({ status: "running", engine: "wolf", tick_count: 1, scan });
  reader.close();
});

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { StatusReader } from "../../../src/services/agent/status-reader.ts";
import { tempDataDir, testMappers } from "./helpers.ts";

it("/health's protection fields: slots whose exchange stop is not resting, and coins polled for silence", () => {
  const dir = tempDataDir();
  mkdirSync(join(dir, "wolf"), { recursive: true });
  const slot = (slot_id: number, instrument: string, status: string, backstop?: unknown) => ({
    slot_id,
    instrument,
    status,
    ...(backstop ? { backstop } : {}),
  });
  writeFileSync(
    join(dir, "wolf", "state.json"),
    JSON.stringify({
      tick_count: 4,
      price_stream: "degraded",
      price_stream_coins: ["yex:VXX"],
      slots: [
        slot(0, "ETH-PERP", "active", { status: "resting", oid: 1, triggerPx: "3300" }),
        slot(1, "VXX-USDYP", "active", { status: "refused", oid: null, triggerPx: "20" }),
        slot(2, "SOL-PERP", "closing", { status: "none" }),
        slot(3, "BTC-PERP", "empty", { status: "refused" }),
        slot(4, "LTC-PERP", "active"),
      ],
    }),
  );
  const reader = new StatusReader(dir, "wolf", testMappers, () => true);
  expect(reader.unprotected()).toEqual([
    { slot_id: 1, instrument: "VXX-USDYP", backstop: "refused" },
    { slot_id: 2, instrument: "SOL-PERP", backstop: "none" },
  ]);
  expect(reader.degradedCoins()).toEqual(["yex:VXX"]);
  reader.close();
});

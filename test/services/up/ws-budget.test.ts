import { describe, expect, it } from "vitest";
import { upConfig } from "../../../src/services/up/config.ts";
import { plan, UP_WS_PER_TRADER, UP_WS_SPARE_CONNECTIONS } from "../../../src/services/up/plan.ts";
import { WS_LIMITS } from "../../../src/sim/server/ws-limits.ts";

describe("hl up within the exchange's per-IP WebSocket limits", () => {
  for (const split of [false, true]) {
    it(`its trading children${split ? " (--split)" : ""} hold at most 10 connections and 10 users, with connections to spare`, () => {
      const cfg = upConfig({ dataDir: "/tmp/d", split }, {});
      const traders = plan(cfg, {}).filter((c) => c.walletDir !== undefined);
      expect(traders.map((c) => c.name)).toEqual(["agent", "house-1", "house-2", "house-3", "house-4"]);
      const connections = traders.length * UP_WS_PER_TRADER.connections;
      expect(connections + UP_WS_SPARE_CONNECTIONS).toBeLessThanOrEqual(WS_LIMITS.connections);
      expect(traders.length * UP_WS_PER_TRADER.users).toBeLessThanOrEqual(WS_LIMITS.users);
    });
  }
});

import { describe, expect, it } from "vitest";
import { upConfig } from "../../../src/services/up/config.ts";
import { plan } from "../../../src/services/up/plan.ts";
import { WS_LIMITS } from "../../../src/sim/server/ws-limits.ts";

/**
 * What each trading child of `hl up` holds of Hyperliquid's per-IP WebSocket limits: one connection
 * (its exchange client's stream: fills and open orders for a house agent, mids of every dex for
 * WOLF) naming at most its own account in user subscriptions. The services stream nothing. Measured
 * on the sim (GET /sim/ws-limits): 5 connections, 11 subscriptions, 4 users, with or without --split.
 */
const UP_WS_PER_TRADER = { connections: 1, users: 1 } as const;
/** Connections `hl up` leaves free on the IP for the user's own `hl` commands and a reconnect. */
const UP_WS_SPARE_CONNECTIONS = 3;

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

/** What `GET /` of the sim world answers: the URL `hl up` prints for it should say what it is, not 404. */
export const SIM_INDEX = {
  service: "sim world: a simulated Hyperliquid (paper network; no real money, no key needed)",
  docs: "docs/sim-world.md",
  endpoints: {
    "POST /info": "the exchange's info API (meta, allMids, l2Book, candleSnapshot, clearinghouseState, …)",
    "POST /exchange": "signed actions as on Hyperliquid (order, cancel, modify, updateLeverage, …)",
    "GET /ws": "WebSocket subscriptions as on Hyperliquid (allMids, l2Book, trades, userFills, …)",
    "GET /health": "liveness and the sim clock",
    "GET /metrics": "Prometheus metrics",
    "GET /sim/state": "the sim's seed, markets and clock",
    "POST /sim/deposit": "paper money for an address (admin)",
    "GET /sim/weight": "REST request weight spent per client source address, against the per-IP limit",
    "GET /sim/ws-limits":
      "WebSocket connections, subscriptions, users, messages and posts per client source address",
    "POST /sim/delist":
      "delist a market now, as the exchange does: orders cancelled, positions settled (admin)",
  },
} as const;

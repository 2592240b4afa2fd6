/** Every default port and path of the platform, in one place. */
export const DEFAULT_PORTS = {
  agent: 8080,
  leaderboard: 8090,
  mcp: 8000,
  feeds: 8100,
  isfr: 8200,
  points: 8300,
  sim: 8900,
} as const;

export const NETWORKS = ["mainnet", "testnet", "paper"] as const;
export type Network = (typeof NETWORKS)[number];

export const PUBLIC_API_URLS: Record<Exclude<Network, "paper">, string> = {
  mainnet: "https://api.hyperliquid.xyz",
  testnet: "https://api.hyperliquid-testnet.xyz",
};

/** Starting balance credited by the sim world to an address on first use (USDC). */
export const SIM_STARTING_BALANCE = "10000";

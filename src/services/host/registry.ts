import type { StartService } from "./types.ts";

/**
 * The services one host process can run side by side, keyed by their command group (`hl <group>
 * serve`). Each is imported only when hosted, so a host loads just what it runs.
 */
export const HOSTABLE: Record<string, () => Promise<StartService>> = {
  leaderboard: async () => (await import("../leaderboard/serve.ts")).serveLeaderboard,
  feeds: async () => (await import("../feeds/serve.ts")).serveFeeds,
  isfr: async () => (await import("../isfr/serve.ts")).serveIsfr,
  points: async () => (await import("../points/serve.ts")).servePoints,
  mcp: async () => (await import("../mcp/serve.ts")).serveMcpHttp,
};

export function isHostable(group: string): boolean {
  return Object.hasOwn(HOSTABLE, group);
}

import type { ChildSpec } from "./plan.ts";

const WHAT: Record<string, string> = {
  sim: "sim world (the paper exchange)",
  leaderboard: "leaderboard",
  feeds: "SWP price feeds",
  isfr: "ISFR index",
  points: "BTCSWP points",
  mcp: "MCP tools (Streamable HTTP)",
};

/** The "what runs where" table printed at start: one row per child, its URL or its strategy. */
export function serviceTable(children: readonly { spec: ChildSpec; logPath: string }[]): string {
  const rows = children.map(({ spec }) => [
    spec.name,
    (spec.name === "agent" ? `${spec.displayName}: dashboard + status API` : WHAT[spec.name]) ??
      `house agent: ${spec.displayName ?? spec.args.join(" ")}`,
    spec.url ?? "(no page; on the leaderboard)",
  ]);
  const widths = [0, 1].map((i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => `  ${r[0]!.padEnd(widths[0]!)}  ${r[1]!.padEnd(widths[1]!)}  ${r[2]}`).join("\n");
}

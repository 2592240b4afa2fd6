import type { ChildSpec } from "./plan.ts";

const WHAT: Record<string, string> = {
  sim: "sim world (the paper exchange)",
  leaderboard: "leaderboard",
  feeds: "SWP price feeds",
  isfr: "ISFR index",
  points: "BTCSWP points",
  mcp: "MCP tools (Streamable HTTP)",
};

const row = (spec: ChildSpec, indent = "") => [
  `${indent}${spec.name}`,
  (spec.name === "agent" ? `${spec.displayName}: dashboard + status API` : WHAT[spec.name]) ??
    `house agent: ${spec.displayName ?? spec.args.join(" ")}`,
  spec.url ?? "(no page; on the leaderboard)",
];

/**
 * The "what runs where" table printed at start: one row per child, its URL or its strategy; a child
 * hosting several services is one row followed by one indented row per service it runs.
 */
export function serviceTable(children: readonly { spec: ChildSpec; logPath: string }[]): string {
  // The agent's dashboard is where a newcomer starts: right after the sim world, whatever the start order.
  const rank = (spec: ChildSpec) => (spec.name === "sim" ? 0 : spec.name === "agent" ? 1 : 2);
  const ordered = [...children].sort((a, b) => rank(a.spec) - rank(b.spec));
  const rows = ordered.flatMap(({ spec }) =>
    spec.hosts
      ? [
          [
            spec.name,
            `one process: ${spec.hosts.map((h) => h.name).join(", ")} (hl up --split: one each)`,
            "",
          ],
          ...spec.hosts.map((h) => row(h, "└ ")),
        ]
      : [row(spec)],
  );
  const widths = [0, 1].map((i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => `  ${r[0]!.padEnd(widths[0]!)}  ${r[1]!.padEnd(widths[1]!)}  ${r[2]}`).join("\n");
}

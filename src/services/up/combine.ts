import { isHostable } from "../host/registry.ts";
import { HOSTED_SERVICES_ENV, type HostedSpec } from "../host/run.ts";
import { HOSTED_TRADERS_ENV } from "../host/traders.ts";
import type { ChildSpec } from "./plan.ts";

/** Each child's request-weight budget per minute (see `UP_WEIGHT_SHARES`). */
const WEIGHT_VAR = "HL_RATE_WEIGHT_PER_MIN";

/** Name of the child that runs the public services together. */
const SHARED_SERVICES_CHILD = "services";
/** Name of the child that runs the house agents' trading engines together. */
const SHARED_TRADERS_CHILD = "traders";

/**
 * `hosted` folded into one child running `args`: the settings every hosted child shares become the
 * host's environment, the rest travels per child in `variable` (JSON).
 */
function hostOf(
  name: string,
  args: string[],
  variable: string,
  hosted: ChildSpec[],
  stopRound: ChildSpec["stopRound"],
): ChildSpec {
  const shared: Record<string, string> = { ...hosted[0]!.env };
  for (const spec of hosted.slice(1))
    for (const [k, v] of Object.entries(shared)) if (spec.env[k] !== v) delete shared[k];
  // One process, one weight budget: the host spends what its children would have spent apart.
  const weights = hosted.map((spec) => Number(spec.env[WEIGHT_VAR]));
  const summed = weights.every((w) => Number.isFinite(w) && w > 0);
  if (summed) shared[WEIGHT_VAR] = String(weights.reduce((a, b) => a + b, 0));
  const specs: HostedSpec[] = hosted.map((spec) => ({
    name: spec.name,
    args: spec.args,
    env: Object.fromEntries(
      Object.entries(spec.env).filter(([k, v]) => shared[k] !== v && !(summed && k === WEIGHT_VAR)),
    ),
  }));
  return {
    name,
    args,
    env: { ...shared, [variable]: JSON.stringify(specs) },
    hosts: hosted,
    stopRound,
    stopTimeoutMs: Math.max(...hosted.map((s) => s.stopTimeoutMs)),
  };
}

/** `children` with `hosted` replaced by `host`, at the place of the first hosted one. */
function replaced(children: readonly ChildSpec[], hosted: ChildSpec[], host: ChildSpec): ChildSpec[] {
  const first = children.indexOf(hosted[0]!);
  const rest = children.filter((c) => !hosted.includes(c));
  rest.splice(first, 0, host);
  return rest;
}

/**
 * The children of `hl up` with the stateless public services (leaderboard, feeds, ISFR, points,
 * MCP) folded into one `hl services serve` child: each keeps its own port, settings and health URL,
 * but they share one Node.js heap and module graph instead of five. The settings every hosted
 * service shares become the host's environment; the rest travels per service.
 */
export function combineServices(children: readonly ChildSpec[]): ChildSpec[] {
  const hosted = children.filter((c) => c.stopRound === 1 && isHostable(c.args[0] ?? ""));
  if (hosted.length < 2) return [...children];
  return replaced(
    children,
    hosted,
    hostOf(SHARED_SERVICES_CHILD, ["services", "serve"], HOSTED_SERVICES_ENV, hosted, 1),
  );
}

/**
 * The house agents (`hl run …` children) folded into one `hl traders serve` child: each engine keeps
 * its own data directory, paper wallet and settings, but they share one Node.js heap and module
 * graph instead of one process each.
 */
export function combineTraders(children: readonly ChildSpec[]): ChildSpec[] {
  const hosted = children.filter((c) => c.stopRound === 0 && c.args[0] === "run");
  if (hosted.length < 2) return [...children];
  return replaced(
    children,
    hosted,
    hostOf(SHARED_TRADERS_CHILD, ["traders", "serve"], HOSTED_TRADERS_ENV, hosted, 0),
  );
}

/** The URLs that must answer before a child counts as healthy (every hosted service's, for a host). */
export function healthUrls(spec: ChildSpec): string[] {
  const specs = spec.hosts ?? [spec];
  return specs.flatMap((s) => (s.healthUrl ? [s.healthUrl] : []));
}

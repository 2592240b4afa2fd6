import { isHostable } from "../host/registry.ts";
import { HOSTED_SERVICES_ENV, type HostedSpec } from "../host/run.ts";
import type { ChildSpec } from "./plan.ts";

/** Name of the child that runs the public services together. */
export const SHARED_SERVICES_CHILD = "services";

/**
 * The children of `hl up` with the stateless public services (leaderboard, feeds, ISFR, points,
 * MCP) folded into one `hl services serve` child: each keeps its own port, settings and health URL,
 * but they share one Node.js heap and module graph instead of five. The settings every hosted
 * service shares become the host's environment; the rest travels per service.
 */
export function combineServices(children: readonly ChildSpec[]): ChildSpec[] {
  const hosted = children.filter((c) => c.stopRound === 1 && isHostable(c.args[0] ?? ""));
  if (hosted.length < 2) return [...children];
  const shared: Record<string, string> = { ...hosted[0]!.env };
  for (const spec of hosted.slice(1))
    for (const [k, v] of Object.entries(shared)) if (spec.env[k] !== v) delete shared[k];
  const specs: HostedSpec[] = hosted.map((spec) => ({
    name: spec.name,
    args: spec.args,
    env: Object.fromEntries(Object.entries(spec.env).filter(([k, v]) => shared[k] !== v)),
  }));
  const host: ChildSpec = {
    name: SHARED_SERVICES_CHILD,
    args: ["services", "serve"],
    env: { ...shared, [HOSTED_SERVICES_ENV]: JSON.stringify(specs) },
    hosts: hosted,
    stopRound: 1,
    stopTimeoutMs: Math.max(...hosted.map((s) => s.stopTimeoutMs)),
  };
  const first = children.indexOf(hosted[0]!);
  const rest = children.filter((c) => !hosted.includes(c));
  rest.splice(first, 0, host);
  return rest;
}

/** The URLs that must answer before a child counts as healthy (every hosted service's, for a host). */
export function healthUrls(spec: ChildSpec): string[] {
  const specs = spec.hosts ?? [spec];
  return specs.flatMap((s) => (s.healthUrl ? [s.healthUrl] : []));
}

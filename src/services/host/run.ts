import { serveOptions } from "./args.ts";
import { HOSTABLE } from "./registry.ts";
import type { RunningService, ServeContext } from "./types.ts";

/** One service a host runs: its `hl … serve` arguments and the environment it would have had alone. */
export interface HostedSpec {
  name: string;
  args: string[];
  /** Settings of this service only, laid over the host's environment. */
  env: Record<string, string>;
}

/** The environment variable carrying a host's services, as JSON (`HostedSpec[]`). */
export const HOSTED_SERVICES_ENV = "HL_HOSTED_SERVICES";

export function parseHostedSpecs(raw: string | undefined): HostedSpec[] {
  if (!raw) throw new Error(`${HOSTED_SERVICES_ENV} is not set: nothing to serve`);
  const specs = JSON.parse(raw) as HostedSpec[];
  if (!Array.isArray(specs) || specs.length === 0) throw new Error(`${HOSTED_SERVICES_ENV} names no service`);
  return specs;
}

/**
 * Start every service in this process, each with its own options, environment and port; its log
 * lines are prefixed with its name. If one cannot start, the others are closed again and the error
 * is thrown (the supervisor of the host restarts the whole host).
 */
export async function hostServices(
  specs: readonly HostedSpec[],
  host: ServeContext,
): Promise<RunningService> {
  const starts = specs.map(async (spec) => {
    const { group, opts } = serveOptions(spec.args);
    const load = HOSTABLE[group];
    if (!load) throw new Error(`${spec.name}: "${group}" cannot run in a shared process`);
    const start = await load();
    return start(opts, {
      env: { ...host.env, [HOSTED_SERVICES_ENV]: undefined, ...spec.env },
      log: (line) => host.log(`[${spec.name}] ${line}`),
      warn: (line) => host.warn(`[${spec.name}] ${line}`),
    });
  });
  const settled = await Promise.allSettled(starts);
  const running = settled.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === "rejected");
  const closeAll = async () => {
    await Promise.all(running.map((r) => r.close()));
  };
  if (failed) {
    await closeAll();
    throw failed.reason;
  }
  return { close: closeAll };
}

import { UserError } from "../../core/errors.ts";
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

const isHostedSpec = (v: unknown): v is HostedSpec => {
  const s = v as Partial<HostedSpec> | null;
  return (
    typeof s?.name === "string" &&
    Array.isArray(s.args) &&
    s.args.every((a) => typeof a === "string") &&
    typeof s.env === "object" &&
    s.env !== null &&
    Object.values(s.env).every((e) => typeof e === "string")
  );
};

export function parseHostedSpecs(raw: string | undefined, variable = HOSTED_SERVICES_ENV): HostedSpec[] {
  if (!raw) throw new UserError(`${variable} is not set: nothing to serve`);
  let specs: unknown;
  try {
    specs = JSON.parse(raw);
  } catch {
    throw new UserError(`${variable} is not JSON`);
  }
  if (!Array.isArray(specs) || specs.length === 0 || !specs.every(isHostedSpec))
    throw new UserError(`${variable} must be a JSON array of {name, args, env}`);
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
    if (!load) throw new UserError(`${spec.name}: "${group}" cannot run in a shared process`);
    const start = await load();
    return start(opts, {
      env: { ...host.env, [HOSTED_SERVICES_ENV]: undefined, ...spec.env },
      log: (line) => host.log(`[${spec.name}] ${line}`),
      warn: (line) => host.warn(`[${spec.name}] ${line}`),
      ...(host.logger ? { logger: host.logger } : {}),
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

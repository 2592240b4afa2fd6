import { UserError } from "../../core/errors.ts";

/** When a supervisor gives up on a child: more than `maxRestarts` crashes, each within `healthyAfterMs` of its start. */
export interface RestartPolicy {
  maxRestarts: number;
  healthyAfterMs: number;
  baseBackoffMs: number;
}

type Env = Record<string, string | undefined>;

function positive(env: Env, name: string, integer: boolean): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === "") return undefined;
  const n = Number(raw);
  if (!(Number.isFinite(n) && n >= 0) || (integer && !Number.isInteger(n)))
    throw new UserError(`${name} must be a non-negative ${integer ? "integer" : "number"}, got "${raw}"`);
  return n;
}

/**
 * The restart policy from the environment, over a host's defaults: HL_SUPERVISOR_MAX_RESTARTS (N),
 * HL_SUPERVISOR_HEALTHY_S (T: a child that lived this long resets the count) and
 * HL_SUPERVISOR_BACKOFF_MS (first wait of a crash loop, doubling). Every supervisor reads the same three.
 */
export function restartPolicyFromEnv(defaults: RestartPolicy, env: Env = process.env): RestartPolicy {
  const healthyS = positive(env, "HL_SUPERVISOR_HEALTHY_S", false);
  return {
    maxRestarts: positive(env, "HL_SUPERVISOR_MAX_RESTARTS", true) ?? defaults.maxRestarts,
    healthyAfterMs: healthyS === undefined ? defaults.healthyAfterMs : healthyS * 1000,
    baseBackoffMs: positive(env, "HL_SUPERVISOR_BACKOFF_MS", false) ?? defaults.baseBackoffMs,
  };
}

import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { UserError } from "../core/errors.ts";
import type { DslConfigInput } from "../guard/config.ts";
import { runStopConfig } from "../guard/position-stop.ts";

/** `hl run --config FILE`: a run written down (YAML or JSON), as the predecessor allowed. */
const numbers = z.record(z.string(), z.number());
const runConfigSchema = z.strictObject({
  strategy: z.string().min(1),
  instrument: z.string().min(1).optional(),
  tick: z.number().positive().optional(),
  params: numbers.optional(),
  risk: numbers.optional(),
  dsl: z.record(z.string(), z.unknown()).optional(),
});

/** The DSL keys a run config may set (the direction is the position's). */
const DSL_KEYS = [
  "preset",
  "leverage",
  "phase1_retrace",
  "phase1_max_breaches",
  "phase1_absolute_floor",
  "phase2_retrace",
  "phase2_max_breaches",
  "breach_decay_mode",
  "tiers",
  "stagnation_enabled",
  "stagnation_min_roe",
  "stagnation_timeout_ms",
  "breach_interval_ms",
];

/** A DSL trailing stop on the run's position: a preset (default moderate) and overrides of it. */
export interface RunDslConfig {
  preset: string;
  overrides: Partial<DslConfigInput>;
}
type RunConfig = Omit<z.infer<typeof runConfigSchema>, "dsl"> & { dsl?: RunDslConfig };

/** Parse the text of a run config (pure); `path` only names it in errors. */
export function parseRunConfig(text: string, path: string): RunConfig {
  let raw: unknown;
  try {
    raw = path.toLowerCase().endsWith(".json") ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    throw new UserError(
      `${path} is not valid ${path.endsWith(".json") ? "JSON" : "YAML"}: ${(err as Error).message.split("\n")[0]}`,
    );
  }
  const r = runConfigSchema.safeParse(raw);
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new UserError(`${path}: ${issue?.path.join(".") || "(top)"}: ${issue?.message}`);
  }
  const { dsl, ...config } = r.data;
  if (dsl === undefined) return config;
  const unknown = Object.keys(dsl).find((k) => !DSL_KEYS.includes(k));
  if (unknown)
    throw new UserError(`${path}: dsl.${unknown}: not a DSL setting (known: ${DSL_KEYS.join(", ")})`);
  const { preset, ...overrides } = dsl;
  if (preset !== undefined && typeof preset !== "string")
    throw new UserError(`${path}: dsl.preset: must be a preset name`);
  const stop = { preset: preset ?? "moderate", overrides: overrides as Partial<DslConfigInput> };
  try {
    runStopConfig(stop.preset, stop.overrides);
  } catch (e) {
    throw new UserError(`${path}: ${(e as Error).message}`);
  }
  return { ...config, dsl: stop };
}

/** `--dsl-preset` wins over the file's preset and keeps the file's overrides. */
export function withDslPreset(
  file: RunDslConfig | undefined,
  preset: string | undefined,
): { dsl?: RunDslConfig } {
  if (preset === undefined) return file ? { dsl: file } : {};
  const overrides = file?.overrides ?? {};
  runStopConfig(preset, overrides);
  return { dsl: { preset, overrides } };
}

export function readRunConfig(path: string): RunConfig {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    throw new UserError(`config file ${path} not found`);
  }
  return parseRunConfig(text, path);
}

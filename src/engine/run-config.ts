import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { UserError } from "../core/errors.ts";

/** `hl run --config FILE`: a run written down (YAML or JSON), as the predecessor allowed. */
const numbers = z.record(z.string(), z.number());
export const runConfigSchema = z.strictObject({
  strategy: z.string().min(1),
  instrument: z.string().min(1).optional(),
  tick: z.number().positive().optional(),
  params: numbers.optional(),
  risk: numbers.optional(),
  dsl: z.unknown().optional(),
});
export type RunConfig = Omit<z.infer<typeof runConfigSchema>, "dsl">;

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
  if (r.data.dsl !== undefined) {
    throw new UserError(
      `${path}: a DSL trailing stop inside a strategy run is not supported; guard the run's position with 'hl dsl start INSTRUMENT' alongside it`,
    );
  }
  const { dsl: _dsl, ...config } = r.data;
  return config;
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

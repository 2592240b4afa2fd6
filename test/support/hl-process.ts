import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";

/** The `hl` launcher, as users run it. */
export const HL_BIN = join(import.meta.dirname, "../../bin/hl.mjs");

export interface HlOutcome {
  code: number;
  stdout: string;
  stderr: string;
}

const run = promisify(execFile);

/** Run `hl ARGS` to its end in its own process and give back its exit code and output, never throwing. */
export async function runHl(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  timeoutMs = 30_000,
): Promise<HlOutcome> {
  try {
    const { stdout, stderr } = await run(process.execPath, [HL_BIN, ...args], { env, timeout: timeoutMs });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === "number" ? e.code : 1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../core/errors.ts";
import { type SetupCheckResult, setupCheck } from "./setup-check.ts";

/** The oldest Node.js this project runs on (package.json `engines`). */
const MIN_NODE = [20, 19] as const;

interface BootstrapResult {
  node: string;
  dataDir: string;
  check: SetupCheckResult;
  /** What to run next. */
  next: string;
}

/**
 * `hl setup bootstrap`: what the predecessor's bootstrap did for its Python install, for this one —
 * check the runtime, create the data directory's folders, then run the environment check.
 */
export async function bootstrap(opts: {
  dataDir: string;
  network?: string;
  nodeVersion?: string;
}): Promise<BootstrapResult> {
  const node = opts.nodeVersion ?? process.versions.node;
  const [major = 0, minor = 0] = node.split(".").map(Number);
  if (major < MIN_NODE[0] || (major === MIN_NODE[0] && minor < MIN_NODE[1]))
    throw new UserError(`Node.js ${node} is too old: hl-agent needs ${MIN_NODE.join(".")} or newer`);
  for (const sub of ["wolf", "cli", "journal", "memory", "logs"])
    mkdirSync(join(opts.dataDir, sub), { recursive: true });
  const check = await setupCheck({ network: opts.network, env: { ...process.env, DATA_DIR: opts.dataDir } });
  const noKey = check.issues.some((i) => /key|wallet/i.test(i));
  return {
    node,
    dataDir: opts.dataDir,
    check,
    next: noKey ? "hl wallet auto" : "hl run simple_mm -i ETH-PERP --mock (or npm start for everything)",
  };
}

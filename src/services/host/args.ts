import { UserError } from "../../core/errors.ts";
import type { ServeOptions } from "./types.ts";

const camel = (flag: string) => flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/**
 * The options of `hl <group> serve --flag value … --bare-flag` as the command line would give them:
 * `--proxy-only` → `{ proxyOnly: true }`, `--port 8100` → `{ port: "8100" }`.
 */
export function serveOptions(args: readonly string[]): { group: string; opts: ServeOptions } {
  const [group, command, ...rest] = args;
  if (!group || command !== "serve") throw new UserError(`not a serve command: ${args.join(" ")}`);
  const opts: ServeOptions = {};
  for (let i = 0; i < rest.length; i++) {
    const token = rest[i]!;
    if (!token.startsWith("--")) throw new UserError(`unexpected argument "${token}" in ${args.join(" ")}`);
    const next = rest[i + 1];
    if (next === undefined || next.startsWith("--")) opts[camel(token.slice(2))] = true;
    else {
      opts[camel(token.slice(2))] = next;
      i++;
    }
  }
  return { group, opts };
}

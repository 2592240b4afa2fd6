import { UserError } from "../../core/errors.ts";

/** A `--port` value, or undefined when not given; anything else than 0-65535 is a readable error. */
export function portOption(raw: string | undefined, flag = "--port"): number | undefined {
  if (raw === undefined) return undefined;
  const port = Number(raw);
  if (!(Number.isInteger(port) && port >= 0 && port <= 65535))
    throw new UserError(`${flag} must be a port number, got "${raw}"`);
  return port;
}

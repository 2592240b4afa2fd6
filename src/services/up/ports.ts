import { createServer } from "node:net";
import { UserError } from "../../core/errors.ts";
import { PORT_SETTINGS, portClaims, type UpPorts } from "./config.ts";

/** Can `host:port` be bound right now? (Bound and released at once.) */
export function portIsFree(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once("error", () => resolve(false));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve(true)));
  });
}

/**
 * Before anything starts: every port `hl up` needs must be distinct and free. The first problem is
 * one line naming the port and the flag (or env var) that moves it.
 */
export async function checkPorts(ports: UpPorts, host: string): Promise<void> {
  const claims = portClaims(ports);
  const seen = new Map<number, string>();
  for (const c of claims) {
    const other = seen.get(c.port);
    const { flag, env } = PORT_SETTINGS[c.key];
    if (other !== undefined)
      throw new UserError(
        `port ${c.port} is wanted by both the ${other} and the ${c.what}; choose another with ${flag} (or ${env})`,
      );
    seen.set(c.port, c.what);
  }
  for (const c of claims) {
    if (await portIsFree(c.port, host)) continue;
    const { flag, env } = PORT_SETTINGS[c.key];
    throw new UserError(
      `port ${c.port} (${c.what}) is already in use; choose another with ${flag} (or ${env})`,
    );
  }
}

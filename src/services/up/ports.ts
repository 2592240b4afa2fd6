import { createServer } from "node:net";
import { UserError } from "../../core/errors.ts";
import { PORT_SETTINGS, portClaims, SERVICE_KEYS, type UpPorts } from "./config.ts";

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

/** `hl up`'s port flags for `ports` (`--sim-port 8900 --agent-port 8080 …`). */
export function upPortFlags(ports: UpPorts): string[] {
  return SERVICE_KEYS.flatMap((key) => [PORT_SETTINGS[key].flag, String(ports[key])]);
}

/**
 * A set of ports for `hl up` that are all free on `host` now: `preferred` when every one of its
 * ports is, otherwise seven services on consecutive ports from a random base (the feeds proxy last,
 * its four feeds after it), so that runs side by side (tests, a second checkout) do not collide.
 */
export async function freeUpPorts(host: string, preferred?: UpPorts): Promise<UpPorts> {
  const allFree = async (p: UpPorts) =>
    (await Promise.all(portClaims(p).map((c) => portIsFree(c.port, host)))).every(Boolean);
  if (preferred && (await allFree(preferred))) return preferred;
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * 40_000);
    const ports = {
      sim: base,
      agent: base + 1,
      leaderboard: base + 2,
      mcp: base + 3,
      isfr: base + 4,
      points: base + 5,
      feeds: base + 6,
    };
    if (await allFree(ports)) return ports;
  }
  throw new Error(`no eleven consecutive free ports found on ${host}`);
}

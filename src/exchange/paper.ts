import { NetworkError } from "./errors.ts";

/** A sim world the paper network talks to; `close()` stops it only if this process started it. */
export interface PaperWorld {
  url: string;
  /** True when nothing was listening and the sim world was started in this process. */
  startedHere: boolean;
  close(): Promise<void>;
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]", "::1"]);

/** Does anything answer POST /info at `url` within `timeoutMs`? Any HTTP answer counts. */
export async function probeInfo(url: string, timeoutMs = 500): Promise<boolean> {
  try {
    const res = await fetch(`${url.replace(/\/+$/, "")}/info`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ type: "meta" }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    await res.body?.cancel();
    return true;
  } catch {
    return false;
  }
}

/**
 * Make sure a sim world answers at `url` (the paper network's base URL). When nothing listens there and
 * the URL is local, start one in-process on that port; otherwise use whatever answers.
 */
export async function ensurePaperWorld(
  url: string,
  opts: { seed?: number; probeTimeoutMs?: number } = {},
): Promise<PaperWorld> {
  if (await probeInfo(url, opts.probeTimeoutMs))
    return { url, startedHere: false, close: async () => undefined };
  const parsed = new URL(url);
  if (!LOOPBACK.has(parsed.hostname))
    throw new NetworkError(
      `nothing answers at ${url} and it is not local, so no sim world can be started there`,
    );
  const port = parsed.port ? Number(parsed.port) : 80;
  const { startSimWorld } = await import("../sim/world.ts");
  try {
    const world = await startSimWorld(opts.seed === undefined ? { port } : { port, seed: opts.seed });
    return { url: world.url, startedHere: true, close: () => world.close() };
  } catch (err) {
    // Something holds the port but was too slow to answer the quick probe (a busy sim world): use it
    // if it answers given more time, instead of failing on the port we just found taken.
    if ((err as NodeJS.ErrnoException).code === "EADDRINUSE" && (await probeInfo(url, 5000))) {
      return { url, startedHere: false, close: async () => undefined };
    }
    throw err;
  }
}

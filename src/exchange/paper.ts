import { UserError } from "../core/errors.ts";
import { acquireRunLock, type RunLock } from "../store/run-lock.ts";
import { NetworkError } from "./errors.ts";

/** A sim world the paper network talks to; `close()` stops it only if this process started it. */
export interface PaperWorld {
  url: string;
  /** True when nothing was listening and the sim world was started in this process. */
  startedHere: boolean;
  close(): Promise<void>;
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]", "::1"]);

/**
 * Does anything answer at `url`'s /info within `timeoutMs`? Any HTTP answer counts. A GET, which
 * the sim answers (404) without weighing it: a read (POST) would spend 20 of the IP's minute at
 * every paper command's start, which no client budget, nor `hl up`'s weight broker, knows of.
 */
export async function probeInfo(url: string, timeoutMs = 500): Promise<boolean> {
  try {
    const res = await fetch(`${url.replace(/\/+$/, "")}/info`, { signal: AbortSignal.timeout(timeoutMs) });
    await res.body?.cancel();
    return true;
  } catch {
    return false;
  }
}

/** How long a one-off command waits for another one to hand the saved paper world back. */
const LOCK_WAIT_MS = 30_000;

/**
 * Make sure a sim world answers at `url` (the paper network's base URL). When nothing listens there and
 * the URL is local, start one in-process on that port; otherwise use whatever answers.
 *
 * With `stateDir` the in-process world is the persisted one: it is restored from `<stateDir>/sim.db`
 * and saved back on close, under `<stateDir>/world.lock` so two commands never run it at once (a
 * second command waits for the first to finish, or uses its world while it answers).
 */
export async function ensurePaperWorld(
  url: string,
  opts: { seed?: number; probeTimeoutMs?: number; stateDir?: string } = {},
): Promise<PaperWorld> {
  const external: PaperWorld = { url, startedHere: false, close: async () => undefined };
  if (await probeInfo(url, opts.probeTimeoutMs)) return external;
  const parsed = new URL(url);
  if (!LOOPBACK.has(parsed.hostname))
    throw new NetworkError(
      `nothing answers at ${url} and it is not local, so no sim world can be started there`,
    );
  const port = parsed.port ? Number(parsed.port) : 80;
  let lock: RunLock | undefined;
  if (opts.stateDir !== undefined) {
    const deadline = Date.now() + LOCK_WAIT_MS;
    for (;;) {
      try {
        lock = acquireRunLock(opts.stateDir, "world", "the paper sim world");
        break;
      } catch (err) {
        if (!(err instanceof UserError) || Date.now() >= deadline) throw err;
        // The holder's world may be answering by now: use it rather than wait for it to stop.
        if (await probeInfo(url, opts.probeTimeoutMs)) return external;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }
  const { startSimWorld } = await import("../sim/world.ts");
  try {
    const world = await startSimWorld({
      port,
      ...(opts.seed === undefined ? {} : { seed: opts.seed }),
      ...(opts.stateDir === undefined ? {} : { stateDir: opts.stateDir }),
    });
    return {
      url: world.url,
      startedHere: true,
      close: async () => {
        try {
          await world.close();
        } finally {
          lock?.release();
        }
      },
    };
  } catch (err) {
    lock?.release();
    // Something holds the port but was too slow to answer the quick probe (a busy sim world): use it
    // if it answers given more time, instead of failing on the port we just found taken.
    if ((err as NodeJS.ErrnoException).code === "EADDRINUSE" && (await probeInfo(url, 5000))) return external;
    throw err;
  }
}

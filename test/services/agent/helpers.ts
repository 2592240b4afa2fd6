import { mkdtempSync } from "node:fs";
import { get } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type AgentConfig, readAgentConfig } from "../../../src/services/agent/config.ts";
import type { GuardJob, StartGuard } from "../../../src/services/agent/guardian.ts";
import { type AgentDeps, startAgentService } from "../../../src/services/agent/server.ts";
import type { StatusMappers, StatusObject } from "../../../src/services/agent/status-reader.ts";

export const FAKE_CHILD = fileURLToPath(new URL("../../fixtures/fake-trading-child.mjs", import.meta.url));

/** Minimal mappers: the real ones are tested with their modules; these keep the service test focused. */
export const testMappers: StatusMappers = {
  wolf: (state) => {
    const s = state as { tick_count: number; total_trades: number };
    return {
      status: "running",
      engine: "wolf",
      tick_count: s.tick_count,
      total_trades: s.total_trades,
    } as StatusObject;
  },
  wolfText: (state) => `WOLF test\nTick ${(state as { tick_count: number }).tick_count}`,
  engine: (kv) =>
    ({ status: "running", engine: "x", tick_count: Number(kv.tick_count ?? 0) }) as StatusObject,
  engineText: (s) => JSON.stringify(s),
};

/** A guard job that only records its life: the real one (`hl agent guard`) is tested on the sim. */
export function recordingGuard(events: string[], paused?: () => boolean): StartGuard {
  return (): GuardJob => {
    let running = true;
    events.push("guard started");
    return {
      pid: null,
      get running() {
        return running;
      },
      async stop() {
        events.push(`guard stopped${paused?.() ? " (trader still paused)" : ""}`);
        running = false;
      },
    };
  };
}

export function tempDataDir(): string {
  return mkdtempSync(join(tmpdir(), "hl-agent-test-"));
}

export async function startTestAgent(
  env: Record<string, string>,
  deps: Partial<AgentDeps> = {},
  childEnv: Record<string, string> = {},
) {
  const dataDir = env.DATA_DIR ?? tempDataDir();
  const cfg: AgentConfig = {
    ...readAgentConfig({ RUN_MODE: "wolf", ...env, DATA_DIR: dataDir }),
    port: 0,
    host: "127.0.0.1",
  };
  const svc = await startAgentService(cfg, {
    mappers: testMappers,
    catalog: () => ({ strategies: {}, markets: {} }),
    skillInstall: async () => ({ installed: true, strategies: 14, tools: 17 }),
    feedIntervalMs: 100,
    startGuard: recordingGuard([]),
    ...deps,
    supervisor: {
      entry: FAKE_CHILD,
      env: { ...process.env, DATA_DIR: dataDir, TICK_MS: "100", ...childEnv },
      baseBackoffMs: 100,
      stopTimeoutMs: 2000,
      stdio: "ignore",
      ...deps.supervisor,
    },
  });
  return { svc, base: `http://127.0.0.1:${svc.port}`, dataDir };
}

export async function waitFor<T>(
  fn: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 5000,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined && v !== false) return v as T;
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 25));
  }
}

export interface SseReader {
  events: string[];
  headers: Record<string, string | string[] | undefined>;
  close(): void;
}

/** Open an SSE stream and collect raw event blocks (split on blank lines). */
export function openSse(url: string): Promise<SseReader> {
  return new Promise((resolve, reject) => {
    const req = get(url, { headers: { Accept: "text/event-stream" } }, (res) => {
      const reader: SseReader = { events: [], headers: res.headers, close: () => req.destroy() };
      let buf = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        buf += chunk;
        let idx = buf.indexOf("\n\n");
        while (idx >= 0) {
          reader.events.push(buf.slice(0, idx));
          buf = buf.slice(idx + 2);
          idx = buf.indexOf("\n\n");
        }
      });
      res.on("error", () => {});
      resolve(reader);
    });
    req.on("error", (e) => {
      if ((e as NodeJS.ErrnoException).code !== "ECONNRESET") reject(e);
    });
  });
}

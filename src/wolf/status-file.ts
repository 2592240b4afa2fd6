import { loadWolfState } from "./state.ts";
import { type WolfStatus, wolfStatus, wolfStatusText } from "./status.ts";

/**
 * For readers of a running agent (the agent service's /api/status, /status and SSE feed):
 * `$DATA_DIR/wolf/state.json` → the contract's wolf status, `null` when there is no state yet, or
 * `{error}` when the file is unreadable (never mistaken for "no state").
 */
export function readWolfStatus(dataDir: string): WolfStatus | null | { error: string } {
  try {
    const r = loadWolfState(dataDir);
    return r.kind === "ok" ? wolfStatus(r.state) : null;
  } catch (e) {
    return { error: (e as Error).message };
  }
}

/** The plain-text status (`hl wolf status`), or null when there is no state yet. */
export function readWolfStatusText(dataDir: string): string | null {
  const r = loadWolfState(dataDir);
  return r.kind === "ok" ? wolfStatusText(r.state) : null;
}

/**
 * A reconnecting Server-Sent Events reader over fetch: used by the feeds proxy (one upstream
 * subscription per feed) and by the points service (storing every BTCSWP tick).
 */

interface SseHandlers {
  onEvent(event: string, data: string, id?: string): void;
  /** Called on every (re)connection, before its first event: a reader can backfill the gap here. */
  onOpen?(): void | Promise<void>;
  onError?(err: unknown): void;
}

export interface SseSubscription {
  readonly connected: boolean;
  close(): void;
}

interface SseClientOptions {
  /** First reconnection delay; doubles up to `maxRetryMs` (defaults 250 ms and 5 s). */
  retryMs?: number;
  maxRetryMs?: number;
}

/** Split a buffer into complete SSE blocks; returns the blocks and the unfinished remainder. */
export function splitSseBlocks(buffer: string): { blocks: string[]; rest: string } {
  const normalized = buffer.replace(/\r\n?/g, "\n");
  const parts = normalized.split("\n\n");
  const rest = parts.pop() ?? "";
  return { blocks: parts, rest };
}

/** Parse one SSE block into its event name (default "message"), data and id; null for a comment-only block. */
export function parseSseBlock(block: string): { event: string; data: string; id?: string } | null {
  let event = "message";
  let id: string | undefined;
  const data: string[] = [];
  for (const line of block.split("\n")) {
    if (line === "" || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") event = value;
    else if (field === "data") data.push(value);
    else if (field === "id" && !value.includes("\0")) id = value;
  }
  if (data.length === 0) return null;
  return id === undefined ? { event, data: data.join("\n") } : { event, data: data.join("\n"), id };
}

export function subscribeSse(
  url: string,
  handlers: SseHandlers,
  opts: SseClientOptions = {},
): SseSubscription {
  const abort = new AbortController();
  const base = opts.retryMs ?? 250;
  const max = opts.maxRetryMs ?? 5_000;
  const state = { connected: false, closed: false, lastEventId: undefined as string | undefined };

  const connectOnce = async (): Promise<void> => {
    // Like a browser's EventSource: a reconnect names the last event seen, so the server can resume after it.
    const headers: Record<string, string> = { accept: "text/event-stream" };
    if (state.lastEventId !== undefined) headers["last-event-id"] = state.lastEventId;
    const res = await fetch(url, { headers, signal: abort.signal });
    if (!res.ok || !res.body) {
      await res.body?.cancel();
      throw new Error(`SSE ${url} answered ${res.status}`);
    }
    state.connected = true;
    await handlers.onOpen?.();
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      const { blocks, rest } = splitSseBlocks(buffer + value);
      buffer = rest;
      for (const block of blocks) {
        const ev = parseSseBlock(block);
        if (!ev) continue;
        if (ev.id !== undefined) state.lastEventId = ev.id;
        handlers.onEvent(ev.event, ev.data, ev.id);
      }
    }
  };

  void (async () => {
    let delay = base;
    while (!state.closed) {
      try {
        await connectOnce();
        delay = base;
      } catch (err) {
        if (!state.closed) handlers.onError?.(err);
      }
      state.connected = false;
      if (state.closed) break;
      await new Promise((r) => setTimeout(r, delay).unref());
      delay = Math.min(max, delay * 2);
    }
  })();

  return {
    get connected() {
      return state.connected;
    },
    close() {
      state.closed = true;
      abort.abort();
    },
  };
}

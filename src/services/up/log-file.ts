import { closeSync, openSync, writeSync } from "node:fs";
import type { Readable } from "node:stream";
import { scrubSecrets } from "../../core/secrets.ts";

type OutputStream = "stdout" | "stderr";

/**
 * One line a child wrote, as a line of its JSON log: a structured event (a JSON object) as it is;
 * anything else — a console line meant for a person, a crash's stack trace — as an `output` event
 * naming the child and the stream, its text scrubbed of secrets like every logged line.
 */
export function logLine(
  line: string,
  from: { child: string; stream: OutputStream; pid: number | null },
  now: Date,
): string {
  const text = line.trimEnd();
  if (text.startsWith("{")) {
    try {
      const value: unknown = JSON.parse(text);
      if (typeof value === "object" && value !== null && !Array.isArray(value)) return `${text}\n`;
    } catch {
      // a line that only looks like JSON is wrapped below
    }
  }
  const event = {
    level: from.stream === "stderr" ? "warn" : "info",
    time: now.toISOString(),
    service: from.child,
    pid: from.pid,
    event: "output",
    stream: from.stream,
    msg: scrubSecrets(text),
  };
  return `${JSON.stringify(event)}\n`;
}

/**
 * `<data>/logs/<child>.log` under `hl up`: what a supervised child writes on both streams, one JSON
 * object per line (logLine), across its restarts. Closing waits for the streams still open (a child
 * whose exit was seen may still have output in flight) up to `graceMs`, then drops what comes later.
 */
export class ChildLogFile {
  private readonly fd: number;
  private readonly open = new Set<Readable>();
  private closed = false;
  private drained: (() => void) | undefined;

  constructor(
    readonly path: string,
    private readonly child: string,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.fd = openSync(path, "a");
  }

  /** Follow one stream of one run of the child (each restart brings new streams). */
  follow(stream: Readable, name: OutputStream, pid: number | null): void {
    this.open.add(stream);
    let partial = "";
    stream.setEncoding("utf8");
    stream.on("data", (chunk: string) => {
      const lines = (partial + chunk).split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines) if (line.trim() !== "") this.write(line, name, pid);
    });
    const end = () => {
      if (!this.open.delete(stream)) return;
      if (partial.trim() !== "") this.write(partial, name, pid);
      partial = "";
      if (this.open.size === 0) this.drained?.();
    };
    stream.on("end", end);
    stream.on("close", end);
    stream.on("error", end);
  }

  private write(line: string, stream: OutputStream, pid: number | null): void {
    if (this.closed) return;
    writeSync(this.fd, logLine(line, { child: this.child, stream, pid }, this.now()));
  }

  async close(graceMs = 2_000): Promise<void> {
    if (this.closed) return;
    if (this.open.size > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, graceMs);
        timer.unref();
        this.drained = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    this.closed = true;
    closeSync(this.fd);
  }
}

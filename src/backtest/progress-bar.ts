/** Where a progress bar draws: a terminal's stderr (or a test's fake). */
interface ProgressSink {
  write(text: string): unknown;
  columns?: number;
}

/** Runs shorter than this finish before a bar would help: none is drawn. */
const PROGRESS_AFTER_MS = 1_000;
const REDRAW_MS = 100;

/** One line of progress: a bar, the share done, the count and the elapsed time. */
export function progressLine(
  done: number,
  total: number,
  elapsedMs: number,
  unit: string,
  width = 80,
): string {
  const share = total > 0 ? Math.min(1, done / total) : 1;
  const text = ` ${(share * 100).toFixed(1).padStart(5)}%  ${done.toLocaleString("en-US")}/${total.toLocaleString("en-US")} ${unit}  ${(elapsedMs / 1000).toFixed(1)} s`;
  const barWidth = Math.max(10, Math.min(40, width - text.length - 3));
  const filled = Math.round(share * barWidth);
  return `[${"#".repeat(filled)}${"-".repeat(barWidth - filled)}]${text}`;
}

/**
 * A progress bar on one terminal line, redrawn at most every 100 ms, shown only once the run has
 * taken a second; `clear()` before printing anything else on the same stream, `done()` at the end.
 */
export class ProgressBar {
  private readonly startMs: number;
  private lastDrawMs = -Infinity;
  private shown = false;

  constructor(
    private readonly sink: ProgressSink,
    private readonly unit: string,
    private readonly now: () => number = Date.now,
  ) {
    this.startMs = now();
  }

  update(done: number, total: number): void {
    const t = this.now();
    if (t - this.startMs < PROGRESS_AFTER_MS || (t - this.lastDrawMs < REDRAW_MS && done < total)) return;
    this.lastDrawMs = t;
    this.shown = true;
    this.sink.write(`\r${progressLine(done, total, t - this.startMs, this.unit, this.sink.columns)}\x1b[K`);
  }

  clear(): void {
    if (!this.shown) return;
    this.sink.write("\r\x1b[K");
    this.shown = false;
  }

  done(): void {
    this.clear();
  }
}

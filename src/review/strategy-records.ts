import { recordClosedPosition } from "./journal.ts";
import { rememberSession, type SessionSnapshot } from "./memory.ts";
import {
  type FillContext,
  type FillObserver,
  type NetPosition,
  PositionTracker,
  type TrackedFill,
} from "./position-tracker.ts";

/**
 * The trader's records of a single-strategy run under `$DATA_DIR`: a journal entry per closed
 * position (and `notable_trade` past a tenth of `notableMarginUsd`), and `session_start` /
 * `session_end`. A record that cannot be written is reported through `log`, never thrown into the loop.
 */
export class StrategyRecords implements FillObserver {
  private readonly tracker: PositionTracker;

  constructor(
    private readonly o: {
      dataDir: string;
      strategy: string;
      instrument: string;
      /** The position size a trade is judged against for `notable_trade` (USD). */
      notableMarginUsd?: number;
      log: (line: string) => void;
    },
  ) {
    this.tracker = new PositionTracker(o.instrument, `strategy:${o.strategy}`);
  }

  onFill(fill: TrackedFill, before: NetPosition, after: NetPosition, ctx: FillContext): void {
    const closed = this.tracker.onFill(fill, before, after, ctx);
    if (!closed) return;
    this.guard("journal entry", () =>
      recordClosedPosition(
        this.o.dataDir,
        closed,
        this.o.notableMarginUsd === undefined ? {} : { marginPerSlot: this.o.notableMarginUsd },
      ),
    );
  }

  session(type: "session_start" | "session_end", s: SessionSnapshot, nowMs: number): void {
    this.guard(`${type} memory event`, () => rememberSession(this.o.dataDir, type, s, nowMs));
  }

  private guard(what: string, write: () => unknown): void {
    try {
      write();
    } catch (e) {
      this.o.log(`${what} for ${this.o.instrument} not written: ${(e as Error).message}`);
    }
  }
}

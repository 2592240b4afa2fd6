import { dec, wire } from "../core/decimal.ts";
import { type BackstopSettings, DEFAULT_BACKSTOP } from "./backstop.ts";
import { type BackstopPort, type BackstopState, Backstops, type Guarded } from "./backstops.ts";
import { dslFloor } from "./dsl.ts";
import { loadGuard } from "./store.ts";

/**
 * `hl run`'s exchange backstop: while the run's DSL stop guards a position, a reduce-only stop rests
 * on the exchange beyond its floor (the shared keeper of backstops.ts, owner "run"), following the
 * floor and the position's size; it goes when the position is flat. The guard file the engine's
 * RunStop writes on every tick is the source of the floor.
 */
interface RunBackstopOptions {
  port: BackstopPort;
  /** The exchange coin of the run's instrument. */
  coin: string;
  guardDir: string;
  /** The RunStop's position id (its guard file's name). */
  positionId: string;
  now: () => number;
  log: (line: string) => void;
  alert?: (text: string) => void;
  settings?: BackstopSettings;
}

export class RunBackstop {
  readonly keeper: Backstops;
  private state: BackstopState | undefined;
  private key: string | undefined;

  constructor(private readonly o: RunBackstopOptions) {
    const alert = o.alert;
    this.keeper = new Backstops({
      port: o.port,
      owner: "run",
      settings: () => o.settings ?? DEFAULT_BACKSTOP,
      now: o.now,
      log: o.log,
      ...(alert ? { alert } : {}),
    });
  }

  /** The backstop's last known state (for status and tests). */
  get current(): BackstopState | undefined {
    return this.state;
  }

  private guarded(qty: string): Guarded | undefined {
    const q = dec(qty);
    if (q.isZero()) return undefined;
    const loaded = loadGuard(this.o.guardDir, this.o.positionId);
    if (loaded.kind !== "ok" || loaded.guard.state.closed) return undefined;
    const { state, config } = loaded.guard;
    const side = q.gt(0) ? "long" : "short";
    if (config.direction !== side) return undefined;
    return {
      key: `${this.o.positionId}:${state.created_ts}`,
      coin: this.o.coin,
      side,
      size: wire(q.abs()),
      stops: [dslFloor(config, state)],
    };
  }

  /** At start: exactly one stop for the guarded position (found by cloid, or placed), none otherwise. */
  async start(qty: string): Promise<void> {
    const g = this.guarded(qty);
    try {
      const { states } = await this.keeper.reconcile(g ? [g] : [], () => undefined, [], {
        coins: [this.o.coin],
      });
      if (g) {
        this.key = g.key;
        this.state = states.get(g.key);
      }
    } catch (err) {
      this.o.log(`backstop not reconciled: ${(err as Error).message}`);
    }
  }

  /** After each tick's DSL step: follow the floor and the size, or cancel once flat. */
  async onTick(qty: string): Promise<void> {
    const g = this.guarded(qty);
    if (g) {
      if (this.key !== g.key) {
        // A new position: the previous one's stop (if any) goes first.
        if (this.key && this.state?.status === "resting") await this.keeper.cancel(this.key, this.o.coin);
        this.key = g.key;
        this.state = undefined;
      }
      const next = await this.keeper.sync(g, this.state);
      if (next) this.state = next;
      return;
    }
    if (this.key && this.state && this.state.status !== "none") {
      this.state = await this.keeper.cancel(this.key, this.o.coin);
    }
  }
}

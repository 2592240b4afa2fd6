import { dec, wire } from "../core/decimal.ts";
import { classifyRejection } from "../exchange/rejections.ts";
import { dexOfCoin } from "../exchange/symbols.ts";
import {
  type BackstopOwner,
  type BackstopSettings,
  backstopChange,
  backstopCloid,
  backstopTriggerPx,
  isBackstopCloid,
  type PositionSide,
} from "./backstop.ts";
import { backstopRetryDelayMs } from "./retry.ts";

/**
 * The exchange backstops of one owner (WOLF, `hl run`, `hl dsl start`, `hl trade --stop`): one
 * reduce-only stop-market trigger order resting on the exchange per guarded position, placed at once,
 * ratcheted with a modify, resized when the position is, cancelled when it closes, reconciled by
 * cloid on every start. The one implementation every guard shares; the decisions are in backstop.ts.
 */

/** A stop as the exchange is asked to hold it. `side` is the guarded position's side. */
export interface StopSpec {
  coin: string;
  side: PositionSide;
  size: string;
  triggerPx: string;
  cloid: `0x${string}`;
}

/** A trigger order resting on the exchange. */
export interface RestingStop {
  coin: string;
  cloid: string | null;
  oid: number;
  size: string;
  triggerPx: string;
}

export type StopAnswer = { status: "resting"; oid: number } | { status: "refused"; message: string };

/** What the backstops need from the exchange (src/guard/hl-backstops.ts over HlClient). */
export interface BackstopPort {
  szDecimals(coin: string): Promise<number>;
  placeStop(spec: StopSpec): Promise<StopAnswer>;
  /** Modify the stop with `spec.cloid` in place (new trigger and size). */
  modifyStop(spec: StopSpec): Promise<StopAnswer>;
  /** Cancel by cloid; an order already gone is not an error. */
  cancelStop(coin: string, cloid: `0x${string}`): Promise<void>;
  /**
   * The account's resting trigger orders: on every dex where one can matter — the main dex, the
   * dexes of `coins` (the positions the caller guards) and every dex where the account holds a
   * position. A reduce-only stop on a dex with no position does nothing if it fires (the exchange
   * cancels it, `reduceOnlyCanceled`), so a port may leave such dexes unread to spare request weight.
   */
  restingStops(coins?: readonly string[], opts?: ListingOptions): Promise<RestingStop[]>;
  /** Whether the account holds a position on `coin` now (one account read of its dex). */
  hasPosition(coin: string): Promise<boolean>;
}

export interface ListingOptions {
  /** Read the dexes of the coins asked and no other (no account read): one read per dex. */
  only?: boolean;
}

/**
 * A position's backstop as persisted beside it (WOLF: `backstop` of each slot in state.json):
 * `resting` = on the exchange; `refused` = the exchange would not take it (the position is
 * UNPROTECTED by the exchange; alerted); `none` = not placed (disabled, or not yet).
 */
export interface BackstopState {
  status: "resting" | "refused" | "none";
  cloid: string;
  oid: number | null;
  triggerPx: string;
  size: string;
  /** When it was last placed, modified, refused or found missing (ms). */
  updatedMs: number;
  /** The exchange's refusal or the error, when not resting. */
  message?: string;
}

/** A position to protect: its side and size, and the stop prices the client path acts on. */
export interface Guarded {
  /** Stable per position (WOLF: the slot's position id); the cloid derives from it. */
  key: string;
  coin: string;
  side: PositionSide;
  size: string;
  /** Hard stop and trailing floor as prices; the backstop rests beyond the tighter one. */
  stops: readonly number[];
}

interface BackstopsOptions {
  port: BackstopPort;
  owner: BackstopOwner;
  /** Read on each call (a live config may change). */
  settings: () => BackstopSettings;
  now: () => number;
  log: (line: string) => void;
  /** Operator alert: a refused backstop (the position is unprotected on the exchange). */
  alert?: (text: string) => void;
  /**
   * The keys of every position the owner guards now. Given, the first stop placed on a dex that no
   * listing since the keeper was made has read is followed by one read of that dex, and every stop of
   * this owner there that guards none of these is cancelled: a stale reduce-only stop left on a dex
   * where the account held nothing at start would otherwise act on the new position.
   */
  live?: () => readonly string[];
}

/** A stop that failed on an error (network) is asked again after this; a refused one later (retry.ts). */
const ERROR_RETRY_MS = 5_000;
/**
 * A stop refused for a position the exchange no longer holds is asked again only after this: the
 * owner's next reconciliation closes the position's book meanwhile (each ask costs an action and an
 * account read).
 */
const FLAT_RETRY_MS = 30_000;
const NO_POSITION = "no position on the exchange";
/** The exchange's answer to a cloid already resting (`Duplicate cloid.`). */
const DUPLICATE_CLOID = /duplicate cloid/i;

export class Backstops {
  /** Exchange actions sent (place, modify, cancel): 1 weight each on Hyperliquid. */
  actions = 0;
  private readonly busy = new Map<string, Promise<BackstopState | undefined>>();
  /** Each position's latest state this keeper produced, numbered in the order they came. */
  private readonly produced = new Map<string, { state: BackstopState; seq: number }>();
  private seq = 0;
  private readonly szDecimalsOf = new Map<string, number>();
  /** Dexes whose stops a listing of this keeper has read (none until its first reconcile). */
  private readonly listedDexes = new Set<string>();
  private listedOnce = false;
  /** Reads of a dex no listing covered, one at a time per dex. */
  private readonly sweeps = new Map<string, Promise<void>>();

  constructor(private readonly o: BackstopsOptions) {}

  cloidOf(key: string): `0x${string}` {
    return backstopCloid(this.o.owner, key);
  }

  /** Whether work for this position is in flight (a sync while busy is skipped, not queued). */
  busyWith(key: string): boolean {
    return this.busy.has(key);
  }

  /** Wait for every backstop action in flight. */
  async settled(): Promise<void> {
    while (this.busy.size > 0 || this.sweeps.size > 0)
      await Promise.allSettled([...this.busy.values(), ...this.sweeps.values()]);
  }

  private exclusive(
    key: string,
    work: () => Promise<BackstopState | undefined>,
  ): Promise<BackstopState | undefined> {
    const running = this.busy.get(key);
    if (running) {
      // After the work in flight, whether it succeeded or not.
      const next = () => this.exclusive(key, work);
      return running.then(next, next);
    }
    const run = work()
      .then((state) => {
        if (state) this.produced.set(key, { state, seq: ++this.seq });
        return state;
      })
      .finally(() => this.busy.delete(key));
    this.busy.set(key, run);
    return run;
  }

  private async szDecimals(coin: string): Promise<number> {
    const known = this.szDecimalsOf.get(coin);
    if (known !== undefined) return known;
    const d = await this.o.port.szDecimals(coin);
    this.szDecimalsOf.set(coin, d);
    return d;
  }

  /**
   * The trigger the position's backstop should have now (undefined: no stop to rest beyond). Cheap
   * once the coin's size decimals are known; no request.
   */
  async wantedTrigger(g: Guarded): Promise<string | undefined> {
    return backstopTriggerPx(g.side, g.stops, this.o.settings().margin_pct, await this.szDecimals(g.coin));
  }

  /**
   * Make the exchange hold the right stop for `g`, given what was last known (`current`); resolves
   * with the state to persist, or undefined when nothing changed. Never rejects: an error is logged
   * and left for a later call.
   */
  sync(g: Guarded, current: BackstopState | undefined): Promise<BackstopState | undefined> {
    if (!this.o.settings().enabled) return Promise.resolve(undefined);
    if (this.busy.has(g.key)) return Promise.resolve(undefined);
    return this.exclusive(g.key, () => this.syncNow(g, current)).catch((err: unknown) => {
      this.o.log(`backstop ${g.coin}: ${(err as Error).message}`);
      return undefined;
    });
  }

  private async syncNow(g: Guarded, current: BackstopState | undefined): Promise<BackstopState | undefined> {
    const settings = this.o.settings();
    const szd = await this.szDecimals(g.coin);
    const wantedPx = backstopTriggerPx(g.side, g.stops, settings.margin_pct, szd);
    if (wantedPx === undefined || dec(g.size).lte(0)) return undefined;
    const now = this.o.now();
    const spec: StopSpec = {
      coin: g.coin,
      side: g.side,
      size: g.size,
      triggerPx: wantedPx,
      cloid: this.cloidOf(g.key),
    };
    if (current?.status === "resting") {
      const change = backstopChange(g.side, current, spec, settings, szd, now);
      if (change.kind === "keep") return undefined;
      // Only ever tighter: a size change keeps a resting trigger the floor has not passed yet.
      const tighter =
        g.side === "long" ? dec(wantedPx).gt(current.triggerPx) : dec(wantedPx).lt(current.triggerPx);
      const target = { ...spec, triggerPx: tighter ? wantedPx : current.triggerPx };
      return this.modify(g, target, current, change.why);
    }
    if (current) {
      const wait =
        current.status === "refused"
          ? backstopRetryDelayMs(classifyRejection(current.message ?? ""))
          : current.message?.startsWith(NO_POSITION)
            ? FLAT_RETRY_MS
            : ERROR_RETRY_MS;
      if (current.updatedMs > 0 && now - current.updatedMs < wait) return undefined;
    }
    return this.place(g, spec, current);
  }

  private async place(
    g: Guarded,
    spec: StopSpec,
    current: BackstopState | undefined,
  ): Promise<BackstopState> {
    this.actions++;
    let ans: StopAnswer;
    try {
      ans = await this.o.port.placeStop(spec);
    } catch (err) {
      this.o.log(`backstop ${g.coin}: placing failed (${(err as Error).message}); trying again shortly`);
      return this.state("none", spec, null, (err as Error).message);
    }
    // Right after the placement (protection first): a stale stop of ours on a dex never read goes.
    void this.sweepUnread(g);
    if (ans.status === "resting") {
      this.o.log(
        `backstop ${g.coin}: ${g.side} ${spec.size} protected by a stop at ${spec.triggerPx} (oid ${ans.oid})`,
      );
      return this.state("resting", spec, ans.oid);
    }
    // Another process of this owner placed it first (a guard beside a paused trader): it rests; adopt it.
    if (DUPLICATE_CLOID.test(ans.message)) {
      const there = (await this.o.port.restingStops([g.coin])).find(
        (r) => r.cloid?.toLowerCase() === spec.cloid,
      );
      if (there) {
        this.o.log(
          `backstop ${g.coin}: ${g.side} ${there.size} already protected by a stop at ${there.triggerPx} (oid ${there.oid}, placed by another process); adopted`,
        );
        // updatedMs 0: the next sync resizes or ratchets it at once if it needs to.
        return {
          ...this.state("resting", spec, there.oid),
          triggerPx: there.triggerPx,
          size: wire(dec(there.size)),
          updatedMs: 0,
        };
      }
    }
    // A stop that fired meanwhile closed the position (the new one is refused, its trigger passed).
    if (!(await this.holds(g.coin))) {
      this.o.log(`backstop ${g.coin}: no position on the exchange any more (${ans.message}); no stop needed`);
      return this.state("none", spec, null, `${NO_POSITION} (${ans.message})`);
    }
    return this.refused(g, spec, current, ans.message);
  }

  /**
   * A stop of ours may still rest on `coin`'s dex (a cancel failed): the next placement there reads
   * the dex again, as listings leave a dex with no position unread.
   */
  private unlisted(coin: string): void {
    this.listedDexes.delete(dexOfCoin(coin));
  }

  /** Whether the account still holds `coin`; when it cannot tell, it does (a refusal is alerted). */
  private async holds(coin: string): Promise<boolean> {
    try {
      return await this.o.port.hasPosition(coin);
    } catch (err) {
      this.o.log(`backstop ${coin}: position unknown (${(err as Error).message})`);
      return true;
    }
  }

  /**
   * After the first placement on a dex no listing has read (see `live`): one read of that dex, and
   * this owner's stops there that guard nothing live are cancelled. Before the start's listing there
   * is nothing to do (it reads the dex of every guarded position). In the background (`settled()`
   * waits for it); never rejects.
   */
  private sweepUnread(g: Guarded): Promise<void> {
    const live = this.o.live;
    const dex = dexOfCoin(g.coin);
    if (!live || !this.listedOnce || this.listedDexes.has(dex)) return Promise.resolve();
    const running = this.sweeps.get(dex);
    if (running) return running;
    const sweep = (async () => {
      const resting = await this.o.port.restingStops([g.coin], { only: true });
      const keep = new Set([g.key, ...live()].map((k) => this.cloidOf(k)));
      for (const r of resting) {
        if (dexOfCoin(r.coin) !== dex || !isBackstopCloid(this.o.owner, r.cloid)) continue;
        const cloid = r.cloid!.toLowerCase() as `0x${string}`;
        if (keep.has(cloid)) continue;
        this.actions++;
        await this.o.port.cancelStop(r.coin, cloid);
        this.o.log(`backstop: cancelled a stale stop on ${r.coin} at ${r.triggerPx} (no guarded position)`);
      }
      this.listedDexes.add(dex);
    })()
      .catch((err: unknown) =>
        this.o.log(
          `backstop: stale stops on dex ${dex || "main"} not swept (${(err as Error).message}); tried again with its next stop`,
        ),
      )
      .finally(() => this.sweeps.delete(dex));
    this.sweeps.set(dex, sweep);
    return sweep;
  }

  private async modify(
    g: Guarded,
    spec: StopSpec,
    current: BackstopState,
    why: "size" | "ratchet",
  ): Promise<BackstopState> {
    this.actions++;
    const ans = await this.o.port.modifyStop(spec);
    if (ans.status === "resting") {
      this.o.log(
        `backstop ${g.coin}: ${why === "size" ? `resized to ${spec.size}` : `ratcheted ${current.triggerPx} → ${spec.triggerPx}`} (oid ${ans.oid})`,
      );
      return this.state("resting", spec, ans.oid);
    }
    // A refused modify may have left the old stop, or nothing: ask, and re-place if it is gone.
    const still = (await this.o.port.restingStops([g.coin])).find(
      (r) => r.cloid?.toLowerCase() === spec.cloid,
    );
    if (still) {
      this.o.log(`backstop ${g.coin}: modify refused (${ans.message}); the stop at ${still.triggerPx} stays`);
      return {
        ...current,
        oid: still.oid,
        triggerPx: still.triggerPx,
        size: still.size,
        updatedMs: this.o.now(),
      };
    }
    return this.place(g, spec, current);
  }

  private refused(
    g: Guarded,
    spec: StopSpec,
    current: BackstopState | undefined,
    message: string,
  ): BackstopState {
    const text = `backstop for ${g.coin} ${g.side} ${spec.size} refused by the exchange (${message}): the position is NOT protected on the exchange while this process is down`;
    this.o.log(text);
    if (current?.status !== "refused") this.o.alert?.(text);
    return this.state("refused", spec, null, message);
  }

  private state(
    status: BackstopState["status"],
    spec: StopSpec,
    oid: number | null,
    message?: string,
  ): BackstopState {
    return {
      status,
      cloid: spec.cloid,
      oid,
      triggerPx: spec.triggerPx,
      size: spec.size,
      updatedMs: this.o.now(),
      ...(message !== undefined ? { message } : {}),
    };
  }

  /** The position closed: cancel its stop (waits for any action in flight for it). Never rejects. */
  cancel(key: string, coin: string): Promise<BackstopState> {
    const cloid = this.cloidOf(key);
    const none: BackstopState = {
      status: "none",
      cloid,
      oid: null,
      triggerPx: "0",
      size: "0",
      updatedMs: this.o.now(),
    };
    return this.exclusive(key, async () => {
      this.actions++;
      await this.o.port.cancelStop(coin, cloid);
      return none;
    }).then(
      (s) => s ?? none,
      (err: unknown) => {
        this.unlisted(coin);
        this.o.log(
          `backstop ${coin}: cancel failed (${(err as Error).message}); a later reconciliation, or the next stop placed on its dex, removes it`,
        );
        return { ...none, message: (err as Error).message };
      },
    );
  }

  /**
   * On start (and now and then): exactly one backstop per guarded position, none for anything else.
   * Resting stops of this owner that guard nothing are cancelled (orphans); a guarded position's stop
   * is adopted by its cloid (then resized or ratcheted if needed) or placed. Returns each position's
   * state by key (absent: unchanged) and the number of orphans cancelled.
   */
  async reconcile(
    guarded: readonly Guarded[],
    /** The last known state of a position's backstop (read when its turn comes: work may have landed since). */
    known: (key: string) => BackstopState | undefined,
    /** Stops of this owner guarded by someone else (another `hl dsl start`): not orphans. */
    othersKeys: readonly string[] = [],
    /**
     * A keeper of these coins' stops alone (`hl run`'s coin): only their dexes are read, even with no
     * position guarded there (an orphan there goes before it trades), with no account read for other
     * dexes, and only their stops are looked at. Default: every stop of this owner wherever one can matter.
     */
    only?: { coins: readonly string[] },
  ): Promise<{ states: Map<string, BackstopState>; orphans: number }> {
    const states = new Map<string, BackstopState>();
    if (!this.o.settings().enabled) return { states, orphans: 0 };
    // What this keeper does from here on (a price may sync a stop meanwhile) is newer than the list.
    const listedSeq = this.seq;
    const scope = only ? new Set(only.coins) : undefined;
    const coins = [...guarded.map((g) => g.coin), ...(only?.coins ?? [])];
    const resting = (await this.o.port.restingStops(coins, only ? { only: true } : {})).filter(
      (r) => isBackstopCloid(this.o.owner, r.cloid) && (!scope || scope.has(r.coin)),
    );
    // What this listing read for sure (the port may read more: dexes with a position).
    for (const dex of [...(only ? [] : [""]), ...coins.map(dexOfCoin)]) this.listedDexes.add(dex);
    this.listedOnce = true;
    const wanted = new Map(guarded.map((g) => [this.cloidOf(g.key), g]));
    const others = new Set(othersKeys.map((k) => this.cloidOf(k)));
    let orphans = 0;
    for (const r of resting) {
      const cloid = r.cloid!.toLowerCase() as `0x${string}`;
      if (wanted.has(cloid) || others.has(cloid)) continue;
      this.actions++;
      await this.o.port.cancelStop(r.coin, cloid).then(
        () => {
          orphans++;
          this.o.log(
            `backstop: cancelled an orphan stop on ${r.coin} at ${r.triggerPx} (no guarded position)`,
          );
        },
        (err: unknown) => {
          this.unlisted(r.coin);
          this.o.log(`backstop: orphan on ${r.coin} not cancelled (${(err as Error).message})`);
        },
      );
    }
    for (const g of guarded) {
      const cloid = this.cloidOf(g.key);
      const found = resting.find((r) => r.cloid?.toLowerCase() === cloid);
      await this.busy.get(g.key);
      const prev = known(g.key);
      const latest = this.produced.get(g.key);
      const since = latest && latest.seq > listedSeq ? latest.state : undefined;
      const base: BackstopState | undefined =
        since?.status === "resting"
          ? since
          : found
            ? {
                status: "resting",
                cloid,
                oid: found.oid,
                triggerPx: found.triggerPx,
                size: wire(dec(found.size)),
                updatedMs: prev?.status === "resting" ? prev.updatedMs : 0,
              }
            : prev?.status === "refused"
              ? prev
              : undefined;
      const next = await this.sync(g, base);
      const state = next ?? base;
      if (state) states.set(g.key, state);
    }
    return { states, orphans };
  }
}

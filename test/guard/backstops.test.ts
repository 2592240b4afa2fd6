import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { dexOfCoin } from "../../src/exchange/symbols.ts";
import { backstopCloid, DEFAULT_BACKSTOP } from "../../src/guard/backstop.ts";
import {
  type BackstopPort,
  type BackstopState,
  Backstops,
  type Guarded,
  type ListingOptions,
  type RestingStop,
  type StopSpec,
} from "../../src/guard/backstops.ts";
import { RunBackstop } from "../../src/guard/run-backstop.ts";

/** Stops in memory; `refuseModify` makes a modify fail after removing the order (as a cancel-then-place venue may). */
class MemoryStops implements BackstopPort {
  stops = new Map<string, RestingStop>();
  asked: string[] = [];
  refuseModify = false;
  /** A refusal every place answers with, when set. */
  refusePlace: string | undefined;
  /** When set, a place waits for this before it reaches the exchange. */
  placeGate: Promise<void> | undefined;
  private oid = 1;
  async szDecimals() {
    return 2;
  }
  async placeStop(s: StopSpec) {
    this.asked.push("place");
    if (this.refusePlace) return { status: "refused" as const, message: this.refusePlace };
    await this.placeGate;
    // the venue's rule: a cloid of an open order is not taken twice
    if (this.stops.has(s.cloid)) return { status: "refused" as const, message: "Duplicate cloid." };
    const oid = this.oid++;
    this.stops.set(s.cloid, { coin: s.coin, cloid: s.cloid, oid, size: s.size, triggerPx: s.triggerPx });
    return { status: "resting" as const, oid };
  }
  async modifyStop(s: StopSpec) {
    this.asked.push("modify");
    if (this.refuseModify) {
      this.stops.delete(s.cloid);
      return { status: "refused" as const, message: "Order price cannot be more than 95% away" };
    }
    return this.placeStop(s);
  }
  /** When set, the next cancel fails with this (a network error), leaving the stop resting. */
  cancelError: string | undefined;
  async cancelStop(_coin: string, cloid: `0x${string}`) {
    this.asked.push("cancel");
    const error = this.cancelError;
    this.cancelError = undefined;
    if (error) throw new Error(error);
    this.stops.delete(cloid);
  }
  async restingStops() {
    return [...this.stops.values()];
  }
  /** Coins the account no longer holds (a stop fired, a close by hand). */
  flat = new Set<string>();
  async hasPosition(coin: string) {
    return !this.flat.has(coin);
  }
}

/**
 * A port that reads what BackstopPort promises and no more, with no position anywhere: the main dex
 * and the asked coins' dexes, or only the latter when told. Each listing's dexes are kept in `reads`.
 */
class DexStops extends MemoryStops {
  reads: string[][] = [];
  override async restingStops(coins: readonly string[] = [], opts: ListingOptions = {}) {
    const dexes = new Set([...(opts.only ? [] : [""]), ...coins.map(dexOfCoin)]);
    this.reads.push([...dexes]);
    return [...this.stops.values()].filter((r) => dexes.has(dexOfCoin(r.coin)));
  }
}

/** WOLF's keeper over `port` at `at.now`, with the alert and live-keys hooks a test gives. */
function keeper(
  port: MemoryStops,
  at: { now: number },
  hooks: { alert?: (text: string) => void; live?: () => readonly string[] } = {},
) {
  return new Backstops({
    port,
    owner: "wolf",
    settings: () => DEFAULT_BACKSTOP,
    now: () => at.now,
    log: () => undefined,
    ...hooks,
  });
}

const eth: Guarded = { key: "wolf-0-1", coin: "ETH", side: "long", size: "1", stops: [1990] };

describe("the backstop keeper", () => {
  it("a refused modify that left nothing resting is placed again, so the position is never left bare", async () => {
    const port = new MemoryStops();
    const at = { now: 0 };
    const k = keeper(port, at);
    const placed = await k.sync(eth, undefined);
    expect(placed?.status).toBe("resting");
    port.refuseModify = true;
    at.now += 120_000;
    const next = await k.sync({ ...eth, stops: [2010] }, placed);
    expect(port.asked).toEqual(["place", "modify", "place"]);
    expect(next).toMatchObject({ status: "resting" });
    expect(port.stops.size).toBe(1);
  });

  it("reconcile adopts a stop by its cloid, cancels orphans of its owner only, and places what is missing", async () => {
    const port = new MemoryStops();
    const other = backstopCloid("dsl", "x");
    const orphan = backstopCloid("wolf", "wolf-2-1");
    port.stops.set(other, { coin: "BTC", cloid: other, oid: 90, size: "1", triggerPx: "1" });
    port.stops.set(orphan, { coin: "BTC", cloid: orphan, oid: 91, size: "1", triggerPx: "1" });
    const mine = backstopCloid("wolf", eth.key);
    port.stops.set(mine, { coin: "ETH", cloid: mine, oid: 92, size: "1", triggerPx: "1980.0" });
    const sol: Guarded = { key: "wolf-1-1", coin: "SOL", side: "short", size: "10", stops: [101] };
    const { states, orphans } = await keeper(port, { now: 0 }).reconcile([eth, sol], () => undefined);
    expect(orphans).toBe(1);
    expect([...port.stops.keys()].sort()).toEqual([other, mine, backstopCloid("wolf", sol.key)].sort());
    expect(states.get(eth.key)).toMatchObject({ status: "resting", oid: 92 });
    expect(states.get(sol.key)).toMatchObject({ status: "resting" });
    expect(port.asked.filter((a) => a === "place")).toHaveLength(1);
  });

  it("reconcile adopts a stop placed while it read the exchange's orders, instead of placing it twice", async () => {
    // At a start, a price can sync a just-adopted slot's stop while reconcile reads the resting orders.
    const port = new MemoryStops();
    let release: () => void = () => undefined;
    port.placeGate = new Promise<void>((r) => {
      release = r;
    });
    const listing = port.restingStops.bind(port);
    port.restingStops = async () => {
      const list = await listing();
      release(); // the place lands just after the list was read
      return list;
    };
    const alerts: string[] = [];
    const k = keeper(port, { now: 1_000 }, { alert: (t) => alerts.push(t) });
    let saved: BackstopState | undefined;
    const placing = k.sync(eth, undefined).then((s) => {
      saved = s;
    });
    const { states } = await k.reconcile([eth], () => saved);
    await placing;
    expect(port.stops.size).toBe(1);
    expect(states.get(eth.key)).toMatchObject({ status: "resting", oid: 1 });
    expect(alerts).toEqual([]);
  });

  it("a stop another process of the same owner placed first (a guard beside a paused trader) is adopted, not refused", async () => {
    // The trader listed the orders, was paused before placing; the guard beside it placed the same
    // cloid; resumed, the trader's placement is answered "Duplicate cloid.": the stop is there.
    const port = new MemoryStops();
    const alerts: string[] = [];
    const k = keeper(port, { now: 1_000 }, { alert: (t) => alerts.push(t) });
    const cloid = backstopCloid("wolf", eth.key);
    port.stops.set(cloid, { coin: "ETH", cloid, oid: 77, size: eth.size, triggerPx: "1970.0" });
    const next = await k.sync(eth, undefined);
    expect(next).toMatchObject({ status: "resting", oid: 77, triggerPx: "1970.0" });
    expect(port.stops.size).toBe(1);
    expect(alerts).toEqual([]);
  });

  it("a stop refused on a halted market is asked again once a minute, like a close; another refusal after 30 s", async () => {
    const port = new MemoryStops();
    const at = { now: 1_000 };
    const k = keeper(port, at);
    const places = () => port.asked.filter((a) => a === "place").length;
    port.refusePlace = "Trading is halted.";
    const halted = await k.sync(eth, undefined);
    expect(halted).toMatchObject({ status: "refused", message: "Trading is halted." });
    at.now += 30_000;
    expect(await k.sync(eth, halted)).toBeUndefined();
    at.now += 29_000;
    expect(await k.sync(eth, halted)).toBeUndefined();
    expect(places()).toBe(1);
    at.now += 1_000;
    const again = await k.sync(eth, halted);
    expect(places()).toBe(2);
    expect(again).toMatchObject({ status: "refused" });

    port.refusePlace = "Order price cannot be more than 95% away";
    const other = await k.sync({ ...eth, key: "wolf-1-1" }, undefined);
    at.now += 30_000;
    await k.sync({ ...eth, key: "wolf-1-1" }, other);
    expect(places()).toBe(4);
  });

  it("hl run's start reads its coin's dex when flat: its own orphan stop there is cancelled before it trades", async () => {
    const port = new DexStops();
    const orphan = backstopCloid("run", "an-earlier-position:1");
    port.stops.set(orphan, { coin: "yex:VXX", cloid: orphan, oid: 7, size: "3", triggerPx: "20" });
    const run = new RunBackstop({
      port,
      coin: "yex:VXX",
      guardDir: mkdtempSync(join(tmpdir(), "run-backstop-")),
      positionId: "run-1",
      now: () => 1_000,
      log: () => undefined,
    });
    await run.start("0");
    expect(port.asked).toEqual(["cancel"]);
    expect(port.stops.size).toBe(0);
  });

  it("a refused stop for a position the exchange no longer holds (its stop fired) is no alert: no stop is needed", async () => {
    const port = new MemoryStops();
    const alerts: string[] = [];
    const at = { now: 1_000 };
    const k = keeper(port, at, { alert: (t) => alerts.push(t) });
    port.refusePlace = "Invalid TP/SL price. asset=1";
    port.flat.add("ETH");
    const none = await k.sync(eth, undefined);
    expect(none).toMatchObject({ status: "none", oid: null });
    expect(alerts).toEqual([]);
    // Not asked again on every price until the owner books the close: after 30 s.
    at.now += 29_000;
    expect(await k.sync(eth, none)).toBeUndefined();
    at.now += 1_000;
    expect(await k.sync(eth, none)).toMatchObject({ status: "none" });
    expect(port.asked).toEqual(["place", "place"]);
    expect(alerts).toEqual([]);
    // Still held: the refusal is the alert it always was.
    port.flat.clear();
    expect(await k.sync({ ...eth, key: "wolf-0-2" }, undefined)).toMatchObject({ status: "refused" });
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatch(/NOT protected on the exchange/);
  });

  it("the first stop placed on a dex the start did not read is followed by one read of it: a stale stop of ours there goes, live ones stay", async () => {
    const port = new DexStops();
    const stale = backstopCloid("wolf", "wolf-0-1");
    port.stops.set(stale, { coin: "yex:VXX", cloid: stale, oid: 7, size: "3", triggerPx: "20" });
    const theirs = backstopCloid("dsl", "elsewhere");
    port.stops.set(theirs, { coin: "yex:VXX", cloid: theirs, oid: 8, size: "1", triggerPx: "19" });
    const live = new Set<string>();
    const k = keeper(port, { now: 1_000 }, { live: () => [...live] });
    await k.reconcile([], () => undefined); // the start: nothing guarded, only the main dex read
    expect(port.reads).toEqual([[""]]);
    const vxx: Guarded = { key: "wolf-0-2", coin: "yex:VXX", side: "long", size: "2", stops: [21] };
    const other: Guarded = { key: "wolf-1-2", coin: "yex:ABC", side: "long", size: "2", stops: [9] };
    live.add(other.key);
    live.add(vxx.key);
    const [a, b] = await Promise.all([k.sync(vxx, undefined), k.sync(other, undefined)]);
    expect([a?.status, b?.status]).toEqual(["resting", "resting"]);
    // One read of yex for both placements there; ours guarding nothing live is cancelled, the others stay.
    expect(port.reads).toEqual([[""], ["yex"]]);
    expect([...port.stops.keys()].sort()).toEqual(
      [theirs, backstopCloid("wolf", vxx.key), backstopCloid("wolf", other.key)].sort(),
    );
    // Read once: later placements there read nothing more.
    live.add("wolf-2-2");
    await k.sync({ ...vxx, key: "wolf-2-2", coin: "yex:DEF" }, undefined);
    expect(port.reads).toHaveLength(2);
  });

  it("a stop whose cancel failed on a dex left with no position goes with the next stop placed there", async () => {
    const port = new DexStops();
    const live = new Set<string>();
    const k = keeper(port, { now: 1_000 }, { live: () => [...live] });
    const first: Guarded = { key: "wolf-0-1", coin: "yex:VXX", side: "long", size: "2", stops: [21] };
    live.add(first.key);
    await k.reconcile([first], () => undefined); // reads yex (a slot there) and places its stop
    expect(port.stops.size).toBe(1);
    live.delete(first.key);
    port.cancelError = "fetch failed";
    await k.cancel(first.key, first.coin);
    expect(port.stops.size).toBe(1); // left resting; listings no longer read yex (nothing there)
    const next: Guarded = { ...first, key: "wolf-0-2" };
    live.add(next.key);
    await k.sync(next, undefined);
    await k.settled();
    expect([...port.stops.keys()]).toEqual([backstopCloid("wolf", next.key)]);
  });
});

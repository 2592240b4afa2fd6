import { createVenue } from "../src/sim/venue/index.ts";
import type { Address, ExchangeAction } from "../src/sim/venue.ts";
import type { BenchReporter } from "./harness.ts";

/**
 * In-process matching throughput: a realistic mix of resting quotes (~60%), crossing orders (~20%,
 * half Ioc) and cancels (~20%) from 40 accounts on BTC and ETH, through the full `exchange()` path.
 */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Step {
  user: Address;
  action: ExchangeAction;
}

export function scenario(n: number, seed: number): { steps: Step[]; users: Address[] } {
  const rnd = prng(seed);
  const users = Array.from(
    { length: 40 },
    (_, i) => `0x${(i + 1).toString(16).padStart(40, "0")}` as Address,
  );
  const coins = [
    { a: 0, mid: 97000, pxDp: 0, lot: 0.00001, sz: 0.01 }, // BTC: whole-dollar ticks (5 significant figures)
    { a: 1, mid: 34000, pxDp: 1, lot: 0.0001, sz: 0.2 }, // ETH: 0.1 ticks
  ];
  const steps: Step[] = [];
  let nextOid = 1;
  const openByUser = new Map<Address, { a: number; oid: number }[]>();
  for (let i = 0; i < n; i++) {
    const user = users[Math.floor(rnd() * users.length)]!;
    const c = coins[i & 1]!;
    c.mid += Math.round((rnd() - 0.5) * 4);
    const r = rnd();
    const open = openByUser.get(user) ?? [];
    openByUser.set(user, open);
    if (r < 0.2 && open.length > 0) {
      const k = Math.floor(rnd() * open.length);
      const o = open[k]!;
      open[k] = open[open.length - 1]!;
      open.pop();
      steps.push({ user, action: { type: "cancel", cancels: [{ a: o.a, o: o.oid }] } });
      continue;
    }
    const isBuy = rnd() < 0.5;
    const crossing = r > 0.8;
    const offset = crossing ? -Math.floor(rnd() * 20) : 1 + Math.floor(rnd() * 40);
    const pxInt = isBuy ? c.mid - offset : c.mid + offset;
    const px = (pxInt / 10 ** c.pxDp).toFixed(c.pxDp);
    const lots = Math.max(1, Math.round((c.sz / c.lot) * (0.2 + rnd())));
    const sz = (lots * c.lot).toFixed(c.a === 0 ? 5 : 4);
    const tif = crossing && rnd() < 0.5 ? "Ioc" : "Gtc";
    steps.push({
      user,
      action: {
        type: "order",
        orders: [
          { a: c.a, b: isBuy, p: String(Number(px)), s: String(Number(sz)), r: false, t: { limit: { tif } } },
        ],
        grouping: "na",
      },
    });
    if (tif === "Gtc") open.push({ a: c.a, oid: nextOid });
    nextOid++;
  }
  return { steps, users };
}

export default async function (r: BenchReporter): Promise<void> {
  const n = 300_000;
  const { steps, users } = scenario(n, 42);
  let now = Date.UTC(2026, 10, 22);
  const venue = createVenue({ seed: 1, clock: () => now, startingBalance: "100000000" });
  for (const u of users) venue.info({ type: "clearinghouseState", user: u });
  // Warm-up on a separate venue so JIT state does not depend on the measured run.
  const warm = createVenue({ seed: 1, clock: () => now, startingBalance: "100000000" });
  for (let i = 0; i < 20_000; i++) warm.exchange(steps[i]!.action, steps[i]!.user, i);

  let fills = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < steps.length; i++) {
    const s = steps[i]!;
    now += 1;
    const res = venue.exchange(s.action, s.user, now);
    if (res.status === "ok" && s.action.type === "order") {
      const st = (res.response.data as { statuses: Record<string, unknown>[] }).statuses[0]!;
      if ("filled" in st) fills++;
    }
  }
  const secs = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  // CPU time of this (single-threaded) process: "on one core", robust to other load on the machine.
  const cpuSecs = (cpu.user + cpu.system) / 1e6;
  r.figure({
    name: "matching: orders/s per core-second (CPU time)",
    value: n / cpuSecs,
    unit: "orders/s",
    target: { op: ">=", value: 100_000 },
  });
  r.figure({
    name: "matching: orders/s wall clock (60% rest, 20% cross, 20% cancel)",
    value: n / secs,
    unit: "orders/s",
  });
  r.figure({ name: "matching: taker orders filled in the run", value: fills, unit: "orders" });
}

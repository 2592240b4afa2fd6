import { rmSync } from "node:fs";
import { WS_LIMITS, type WsLimits } from "../src/sim/server/ws-limits.ts";
import { getJson, type RunningUp, sleep, startUp, stopUp, until } from "../test/e2e/up-helpers.ts";
import type { BenchReporter } from "./harness.ts";

interface WsReport {
  limits: WsLimits | null;
  addresses: {
    address: string;
    peakConnections: number;
    peakSubscriptions: number;
    peakUsers: number;
    messagesLastMinute: number;
    refused: Record<string, number>;
  }[];
}

/**
 * `hl up` (the default `npm start`, or `--split` with WS_LIMITS_BENCH_SPLIT=1) behind one address,
 * with the sim world enforcing Hyperliquid's per-IP WebSocket limits: the most connections,
 * subscriptions and users it held at once, the messages it sent over the last minute, and the
 * refusals, after WS_LIMITS_BENCH_MIN minutes (default 3). Targets: the exchange's limits, none refused.
 */
export default async function (r: BenchReporter): Promise<void> {
  const minutes = Number(process.env.WS_LIMITS_BENCH_MIN) || 3;
  const split = process.env.WS_LIMITS_BENCH_SPLIT === "1";
  let up: RunningUp | undefined;
  try {
    up = await startUp(split ? ["--split"] : [], { HL_SIM_LIMITS: "on" });
    const sim = `${up.url("sim")}/sim/ws-limits`;
    await until(
      "the sim world",
      async () => (await getJson<WsReport>(sim)) !== undefined,
      Date.now() + 60_000,
    );
    await sleep(minutes * 60_000);
    const use = (await getJson<WsReport>(sim))?.addresses.find((a) => a.address === "127.0.0.1");
    const label = split ? "hl up --split" : "hl up";
    r.figure({
      name: `${label} on one IP: WebSocket connections held at once (most)`,
      value: use?.peakConnections ?? 0,
      unit: "connections",
      target: { op: "<=", value: WS_LIMITS.connections },
    });
    r.figure({
      name: `${label} on one IP: WebSocket subscriptions held at once (most)`,
      value: use?.peakSubscriptions ?? 0,
      unit: "subscriptions",
      target: { op: "<=", value: WS_LIMITS.subscriptions },
    });
    r.figure({
      name: `${label} on one IP: users in user subscriptions (most)`,
      value: use?.peakUsers ?? 0,
      unit: "users",
      target: { op: "<=", value: WS_LIMITS.users },
    });
    r.figure({
      name: `${label} on one IP: WebSocket messages sent (last minute)`,
      value: use?.messagesLastMinute ?? 0,
      unit: "messages/min",
      target: { op: "<=", value: WS_LIMITS.messagesPerMinute },
    });
    r.figure({
      name: `${label} on one IP: WebSocket refusals`,
      value: Object.values(use?.refused ?? {}).reduce((a, b) => a + b, 0),
      unit: "refusals",
      target: { op: "<=", value: 0 },
    });
  } finally {
    if (up) {
      await stopUp(up);
      rmSync(up.dataDir, { recursive: true, force: true });
    }
  }
}

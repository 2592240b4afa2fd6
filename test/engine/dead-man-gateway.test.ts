import { describe, expect, it } from "vitest";
import type { AlertEvent, Alerter } from "../../src/alerts/webhook.ts";
import { HlGateway, type HlMarketData } from "../../src/engine/hl-adapter.ts";
import type { HlClient } from "../../src/exchange/client.ts";

/** hl run's dead man's switch on a live account: refused under $1M of volume, never armed over the backstops. */
const REFUSAL = "Cannot set scheduled cancel time until enough volume traded. Required: $1000000.";

function gateway(opts: { refuse?: boolean; triggers?: number }) {
  const armed: (number | null)[] = [];
  const alerts: [AlertEvent, string][] = [];
  const client = {
    address: "0x00000000000000000000000000000000000000aa",
    infoClient: {
      frontendOpenOrders: async () =>
        Array.from({ length: opts.triggers ?? 0 }, (_, i) => ({ oid: i, isTrigger: true })),
    },
    scheduleCancel: async (atMs: number | null) => {
      if (opts.refuse) throw new Error(REFUSAL);
      armed.push(atMs);
    },
  } as unknown as HlClient;
  const alerter: Alerter = { send: (e, t) => void alerts.push([e, t]), flush: async () => undefined };
  return { gw: new HlGateway(client, {} as HlMarketData, undefined, { alerter }), armed, alerts };
}

describe("dead man's switch through the gateway", () => {
  it("the $1M volume gate is said in one clear line and alerted", async () => {
    const { gw, alerts } = gateway({ refuse: true });
    const err = (await gw.scheduleCancelAll(Date.now() + 60_000).catch((e: unknown) => e)) as Error;
    // It is asked only when no stop order rests (see below): the line must not promise one.
    expect(err.message).toMatch(
      /^dead man's switch unavailable: .*\$1,000,000.*; resting orders are not cancelled if this process dies, and no stop order rests on the exchange for this account \(an hl run with a DSL stop, --dsl-preset, keeps one for its position\)$/,
    );
    expect(alerts).toEqual([["dead_man", err.message]]);
  });

  it("is not armed while stop orders rest (it would cancel them too); disarming always goes through", async () => {
    const { gw, armed } = gateway({ triggers: 2 });
    await expect(gw.scheduleCancelAll(Date.now() + 60_000)).rejects.toThrow(
      /not armed.*2 resting stop order/,
    );
    await gw.scheduleCancelAll(null);
    expect(armed).toEqual([null]);
    const none = gateway({});
    await none.gw.scheduleCancelAll(123_456);
    expect(none.armed).toEqual([123_456]);
  });
});

import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Engine } from "../../src/engine/engine.ts";
import { HlGateway, type HlMarketData } from "../../src/engine/hl-adapter.ts";
import { PaperGateway } from "../../src/engine/paper-gateway.ts";
import type { CancelResult, GatewayOrder, OrderGateway, PlaceRequest } from "../../src/engine/ports.ts";
import { DEFAULT_RISK_LIMITS } from "../../src/engine/risk.ts";
import type { HlClient } from "../../src/exchange/client.ts";
import { defaultParams, findStrategy } from "../../src/strategies/catalog.ts";
import { FakeMarket } from "./fake-market.ts";

/** A venue whose cancels fail now and then: the order stays on the book and the refusal is reported. */
class FlakyCancels implements OrderGateway {
  calls = 0;
  /** Most quotes of ours resting on one side right after a placement. */
  maxPerSide = 0;
  constructor(private readonly inner: PaperGateway) {}
  async place(orders: readonly PlaceRequest[]) {
    const out = await this.inner.place(orders);
    const open = await this.inner.openOrders("ETH-PERP");
    for (const side of ["buy", "sell"] as const)
      this.maxPerSide = Math.max(this.maxPerSide, open.filter((o) => o.side === side).length);
    return out;
  }
  async cancel(instrument: string, orders: readonly GatewayOrder[]): Promise<CancelResult> {
    this.calls += 1;
    if (this.calls % 3 !== 1) return this.inner.cancel(instrument, orders);
    const [stuck, ...rest] = orders;
    await this.inner.cancel(instrument, rest);
    return { failed: stuck ? [{ order: stuck, message: "exchange error HTTP 502" }] : [] };
  }
  openOrders(instrument: string) {
    return this.inner.openOrders(instrument);
  }
  fills(instrument: string, sinceMs: number) {
    return this.inner.fills(instrument, sinceMs);
  }
  position(instrument: string) {
    return this.inner.position(instrument);
  }
}

describe("cancels", () => {
  it("a failed cancel is reconciled before new quotes go out: never two quotes of ours on a side", async () => {
    const paper = new PaperGateway();
    const gateway = new FlakyCancels(paper);
    const strategy = findStrategy("simple_mm")!;
    const lines: string[] = [];
    const engine = new Engine({
      strategy,
      params: defaultParams(strategy),
      instrument: "ETH-PERP",
      market: paper.watch(new FakeMarket({ seed: 7 })),
      gateway,
      dataDir: mkdtempSync(join(tmpdir(), "hl-cancels-")),
      tickMs: 0,
      maxTicks: 60,
      resume: false,
      limits: DEFAULT_RISK_LIMITS,
      requoteBps: 0.5,
      mode: "dry-run",
      network: "test",
      log: (l) => lines.push(l),
    });
    await engine.run();
    expect(gateway.calls).toBeGreaterThan(3);
    expect(gateway.maxPerSide).toBe(1);
    expect(lines.some((l) => l.includes("cancel failed"))).toBe(true);
  });

  it("the live gateway cancels a tick's orders in one exchange call and reports each refusal", async () => {
    const calls: unknown[] = [];
    const client = {
      cancelMany: async (reqs: { oid?: number }[]) => {
        calls.push(reqs);
        return reqs.map((r) =>
          r.oid === 2 ? "Order was never placed, already canceled, or filled." : undefined,
        );
      },
    } as unknown as HlClient;
    const gw = new HlGateway(client, {} as HlMarketData);
    const orders: GatewayOrder[] = [1, 2, 3].map((n) => ({
      oid: String(n),
      side: "buy",
      price: "1",
      size: "1",
    }));
    const r = await gw.cancel("ETH-PERP", orders);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toEqual([1, 2, 3].map((oid) => ({ instrument: "ETH-PERP", oid })));
    expect(r.failed).toEqual([
      { order: orders[1], message: "Order was never placed, already canceled, or filled." },
    ]);
  });
});

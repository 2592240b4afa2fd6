import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Engine } from "../../src/engine/engine.ts";
import { PaperGateway } from "../../src/engine/paper-gateway.ts";
import { DEFAULT_RISK_LIMITS } from "../../src/engine/risk.ts";
import { defaultParams, findStrategy } from "../../src/strategies/catalog.ts";
import { FakeMarket } from "./fake-market.ts";

/** The paper venue on an account that trades other coins too: its newest fill moves on every read. */
class BusyAccount extends PaperGateway {
  asked: number[] = [];
  private through = 0;
  override async fills(instrument: string, sinceMs: number) {
    this.asked.push(sinceMs);
    this.through = Math.max(this.through, sinceMs) + 1_000; // another coin filled since
    return super.fills(instrument, sinceMs);
  }
  accountFillsThroughMs(): number {
    return this.through;
  }
}

describe("fill cursor", () => {
  it("moves past the account's other fills, so a tick does not refetch them all again", async () => {
    const gateway = new BusyAccount();
    const strategy = findStrategy("simple_mm")!;
    const engine = new Engine({
      strategy,
      params: defaultParams(strategy),
      instrument: "ETH-PERP",
      market: gateway.watch(new FakeMarket({ seed: 5 })),
      gateway,
      dataDir: mkdtempSync(join(tmpdir(), "hl-cursor-")),
      tickMs: 0,
      maxTicks: 5,
      resume: false,
      limits: DEFAULT_RISK_LIMITS,
      requoteBps: 2,
      mode: "dry-run",
      network: "test",
      log: () => {},
    });
    await engine.run();
    const asked = gateway.asked;
    expect(asked.length).toBeGreaterThan(3);
    for (let i = 1; i < asked.length; i++) expect(asked[i]!).toBeGreaterThan(asked[i - 1]!);
  });
});

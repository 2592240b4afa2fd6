import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Engine } from "../../src/engine/engine.ts";
import { createLlmAdvisor, providerForModel, resolveLlmConfig } from "../../src/engine/llm-advisor.ts";
import { PaperGateway } from "../../src/engine/paper-gateway.ts";
import { DEFAULT_RISK_LIMITS } from "../../src/engine/risk.ts";
import { defaultParams, findStrategy } from "../../src/strategies/catalog.ts";
import { FakeLlm } from "./fake-llm.ts";
import { FakeMarket } from "./fake-market.ts";

const REQ = { system: "sys", user: "=== MARKET DATA ===", timeoutMs: 5000 };

describe("LLM advisor over the official SDKs, against a local fake provider", () => {
  const fake = new FakeLlm();
  beforeAll(async () => {
    await fake.start();
  });
  afterAll(async () => {
    await fake.close();
  });

  const cases = [
    {
      provider: "anthropic",
      model: "claude-haiku-4-5",
      env: { ANTHROPIC_API_KEY: "k" },
      base: "",
      path: "/v1/messages",
    },
    {
      provider: "openai",
      model: "gpt-4o-mini",
      env: { OPENAI_API_KEY: "k" },
      base: "/v1",
      path: "/v1/chat/completions",
    },
    {
      provider: "google",
      model: "gemini-2.0-flash",
      env: { GEMINI_API_KEY: "k" },
      base: "",
      path: ":generateContent",
    },
  ] as const;

  for (const c of cases) {
    it(`${c.provider}: offers both tools, forces a call and parses place_order`, async () => {
      fake.reply = () => ({
        name: "place_order",
        args: { side: "buy", size: 0.2, price: 2500.5, reasoning: "dip" },
      });
      const cfg = resolveLlmConfig({ model: c.model }, { ...c.env, LLM_BASE_URL: `${fake.url}${c.base}` });
      expect(cfg.provider).toBe(c.provider);
      const before = fake.requests.length;
      const advice = await createLlmAdvisor(cfg)(REQ, new AbortController().signal);
      expect(advice).toEqual({
        kind: "place_order",
        side: "buy",
        size: 0.2,
        price: 2500.5,
        reasoning: "dip",
      });
      const sent = fake.requests[before]!;
      expect(sent.path).toContain(c.path);
      const text = JSON.stringify(sent.body);
      expect(text).toContain("place_order");
      expect(text).toContain("hold");
      if (c.provider === "anthropic") expect(sent.body.tool_choice).toEqual({ type: "any" });
      if (c.provider === "openai") expect(sent.body.tool_choice).toBe("required");
      if (c.provider === "google") expect(text).toContain('"mode":"ANY"');
    });
  }

  it("provider from LLM_PROVIDER or the model name; a missing key is a clear error", () => {
    expect(providerForModel("o3-mini")).toBe("openai");
    expect(providerForModel("gemini-2.5-pro")).toBe("google");
    expect(resolveLlmConfig({}, { LLM_PROVIDER: "openai", OPENAI_API_KEY: "k" }).model).toBe("gpt-4o-mini");
    expect(() => resolveLlmConfig({ model: "claude-sonnet-4" }, {})).toThrow(/ANTHROPIC_API_KEY/);
    expect(() => resolveLlmConfig({}, { LLM_PROVIDER: "acme" })).toThrow(/unknown LLM provider/);
  });

  it("in the engine: advice becomes a filled order; a slow provider times out into a hold", async () => {
    const strategy = findStrategy("claude_agent")!;
    const run = async (params: Record<string, number>) => {
      const paper = new PaperGateway();
      const market = new FakeMarket({ seed: 2, volBps: 1 });
      const cfg = resolveLlmConfig(
        { model: "claude-haiku-4-5" },
        { ANTHROPIC_API_KEY: "k", LLM_BASE_URL: fake.url },
      );
      const lines: string[] = [];
      const engine = new Engine({
        strategy,
        params,
        instrument: "ETH-PERP",
        market: paper.watch(market),
        gateway: paper,
        dataDir: mkdtempSync(join(tmpdir(), "hl-llm-")),
        tickMs: 0,
        maxTicks: 2,
        resume: false,
        limits: DEFAULT_RISK_LIMITS,
        requoteBps: 2,
        mode: "dry-run",
        network: "test",
        advisor: createLlmAdvisor(cfg),
        log: (l) => lines.push(l),
      });
      return { r: await engine.run(), lines };
    };
    fake.delayMs = 0;
    fake.reply = () => ({
      name: "place_order",
      args: { side: "buy", size: 5, price: 2510, reasoning: "up" },
    });
    const ok = await run(defaultParams(strategy));
    expect(ok.r.stats.total_placed).toBe(2);
    expect(ok.r.stats.total_filled).toBeGreaterThan(0);
    expect(Number(ok.r.position.net_qty)).toBeCloseTo(1, 9); // capped at base_size 0.5 per order
    fake.delayMs = 1500;
    const t0 = Date.now();
    const slow = await run({ ...defaultParams(strategy), timeout_s: 0.2 });
    fake.delayMs = 0;
    expect(Date.now() - t0).toBeLessThan(1400); // two ticks did not wait for two 1.5 s answers
    expect(slow.r.stats.total_placed).toBe(0);
  });
});

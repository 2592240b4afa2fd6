import { mkdtempSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runStrategy } from "../../src/engine/runner.ts";
import { RateBudget } from "../../src/exchange/budget.ts";
import { HlClient } from "../../src/exchange/client.ts";
import { type SimWorld, startSimWorld } from "../../src/sim/world.ts";

/** The alerts of `hl run` name the agent that sends them: several agents often share one webhook. */
describe("hl run's alerts", () => {
  let world: SimWorld;
  let hook: Server;
  let hookUrl = "";
  const received: { event: string; source: string; text: string }[] = [];
  beforeAll(async () => {
    world = await startSimWorld({ port: 0, seed: 3, historyDays: 0, liveCoins: ["ETH"] });
    hook = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => {
        body += c.toString();
      });
      req.on("end", () => {
        received.push(JSON.parse(body) as { event: string; source: string; text: string });
        res.end("ok");
      });
    });
    await new Promise<void>((r) => hook.listen(0, "127.0.0.1", r));
    hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
  });
  afterAll(async () => {
    await new Promise((r) => hook.close(r));
    await world.close();
  });

  it("the dead man's switch refusal (the exchange's $1M volume gate) names the agent and its instrument", async () => {
    const agentDir = join(mkdtempSync(join(tmpdir(), "hl-run-alerts-")), "house-4");
    const client = await HlClient.create({
      network: "paper",
      apiUrl: world.url,
      env: { DATA_DIR: agentDir },
      budget: new RateBudget({ weightPerMinute: 1e9 }),
    });
    await client.clearinghouseState(); // opens the paper account with its starting balance
    await runStrategy({
      strategy: "simple_mm",
      instrument: "ETH-PERP",
      tickSeconds: 0,
      maxTicks: 2,
      mock: false,
      dryRun: false,
      network: "paper",
      resume: false,
      dataDir: join(agentDir, "cli"),
      params: {},
      deadManSeconds: 5,
      client,
      env: { HL_ALERT_WEBHOOK: hookUrl, HL_AGENT_NAME: "house simple_mm ETH" },
      log: () => undefined,
    });
    for (let i = 0; i < 40 && !received.some((a) => a.event === "dead_man"); i++)
      await new Promise((r) => setTimeout(r, 50));
    const deadMan = received.find((a) => a.event === "dead_man");
    expect(deadMan?.text).toMatch(/dead man's switch unavailable/);
    expect(deadMan?.source).toContain("house simple_mm ETH");
    expect(deadMan?.source).toContain("/house-4");
    expect(deadMan?.source).toContain("ETH-PERP");
    expect(deadMan?.text.startsWith(`[${deadMan?.source}] `)).toBe(true);
  }, 15_000);
});

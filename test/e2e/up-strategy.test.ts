import { existsSync, rmSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { getJson, type RunningUp, startUp, stopUp, until } from "./up-helpers.ts";

/**
 * `RUN_MODE=strategy STRATEGY=simple_mm INSTRUMENT=ETH-PERP hl up` (what `npm start` runs): the main
 * agent trades the strategy, its status has the strategy shape, the dashboard shows the position
 * table instead of WOLF's slots, and the leaderboard names it.
 */

const CHROMIUM = "/usr/bin/chromium";
let up: RunningUp | undefined;
let browser: Browser | undefined;

afterAll(async () => {
  await browser?.close();
  if (up) {
    await stopUp(up);
    rmSync(up.dataDir, { recursive: true, force: true });
  }
}, 60_000);

describe("hl up with RUN_MODE=strategy", () => {
  it("runs the main agent in strategy mode, shown as such", { timeout: 120_000 }, async () => {
    // The strategy mode is this file's subject: the sim world runs without the per-IP weight limit, as in
    // browser.test.ts (test/e2e/up.test.ts runs hl up with it). Within the limit the house traders'
    // ticks wait on their share of the weight, and so does their stop: some 15 s of this file's 23.
    up = await startUp(["--wolf-tick", "2", "--house-tick", "3"], {
      RUN_MODE: "strategy",
      STRATEGY: "simple_mm",
      INSTRUMENT: "ETH-PERP",
      HL_SIM_LIMITS: "off",
      HL_RATE_WEIGHT_PER_MIN: "120000",
    });
    const url = up.url;
    const deadline = Date.now() + 75_000;
    const status = await until(
      "a strategy tick",
      async () => {
        const s = await getJson<{ status: string; engine: string; tick_count?: number; instrument?: string }>(
          `${url("agent")}/api/status`,
        );
        return s?.status === "running" && (s.tick_count ?? 0) >= 1 ? s : undefined;
      },
      deadline,
    );
    expect(status).toMatchObject({ engine: "simple_mm", instrument: "ETH-PERP" });
    expect(status).not.toHaveProperty("slots");
    expect(up.output()).toMatch(/agent\s+agent simple_mm ETH: dashboard \+ status API/);

    const names = await until(
      "the main agent on the leaderboard",
      async () => {
        const b = await getJson<{ agents: { display_name: string }[] }>(
          `${url("leaderboard")}/api/leaderboard?network=paper`,
        );
        const n = b?.agents.map((a) => a.display_name) ?? [];
        return n.includes("agent simple_mm ETH") ? n : undefined;
      },
      deadline,
    );
    expect(names).not.toContain("WOLF agent");

    if (!existsSync(CHROMIUM)) return;
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox"] });
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    await page.goto(`${url("agent")}/`, { waitUntil: "load" });
    await until(
      "the position table",
      async () => (await page.locator("#position tbody tr").count()) > 0,
      Date.now() + 20_000,
    );
    expect(await page.locator("#strategy-only").isVisible()).toBe(true);
    expect(await page.locator("#wolf-only").isVisible()).toBe(false);
    expect(await page.locator("#mode").textContent()).toContain("strategy");
  });
});

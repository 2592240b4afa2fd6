import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lightweightChartsScript } from "../../src/backtest/backtest-command.ts";
import { renderReportHtml } from "../../src/backtest/report-html.ts";
import { runBacktest } from "../../src/backtest/run-backtest.ts";
import { simHistory } from "./sim-history.ts";

/** The HTML report opened in a real browser (Debian's chromium): its three charts draw, offline. */

const CHROMIUM = "/usr/bin/chromium";
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium)
  console.warn(`browser test skipped: ${CHROMIUM} is not installed (apt-get install chromium)`);
const SHOTS = join(import.meta.dirname, "../..", "test-results", "screenshots");

let browser: Browser | undefined;
let dir = "";

beforeAll(async () => {
  if (!hasChromium) return;
  dir = mkdtempSync(join(tmpdir(), "bt-report-"));
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      "--disable-background-networking",
    ],
  });
}, 30_000);

afterAll(async () => {
  await browser?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!hasChromium)("backtest report in chromium", () => {
  it("draws the price with trade markers, the equity curve and the drawdown, with no network", {
    timeout: 30_000,
  }, async () => {
    const end = Date.UTC(2026, 0, 31);
    const history = simHistory({ coin: "ETH", szDecimals: 4, endPx: 3400, endMs: end, days: 1 });
    const { summary, venue } = await runBacktest({
      strategy: "simple_mm",
      instrument: "ETH-PERP",
      fromMs: end - 6 * 3_600_000,
      toMs: end,
      history,
      szDecimals: 4,
    });
    expect(summary.trades.length).toBeGreaterThan(0);
    const file = join(dir, "report.html");
    writeFileSync(file, renderReportHtml(summary, venue.tape, lightweightChartsScript()));
    const page = await browser!.newPage({ viewport: { width: 1280, height: 1400 } });
    const errors: string[] = [];
    const requests: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    page.on("request", (r) => {
      if (!r.url().startsWith("file:")) requests.push(r.url());
    });
    await page.goto(`file://${file}`, { waitUntil: "load" });
    await page.waitForSelector("body[data-charts=ready]", { timeout: 10_000 });
    for (const id of ["price", "equity", "drawdown"]) {
      // Each chart's pane canvas holds drawn (non-blank) pixels.
      const inked = (await page.evaluate(`(() => {
        const canvases = [...document.querySelectorAll("#${id} canvas")];
        let most = 0;
        for (const c of canvases) {
          const ctx = c.getContext("2d");
          if (!ctx || c.width === 0 || c.height === 0) continue;
          const px = ctx.getImageData(0, 0, c.width, c.height).data;
          const seen = new Set();
          for (let i = 0; i < px.length; i += 16) seen.add((px[i] << 16) | (px[i + 1] << 8) | px[i + 2]);
          most = Math.max(most, seen.size);
        }
        return { canvases: canvases.length, colours: most };
      })()`)) as { canvases: number; colours: number };
      expect(inked.canvases, id).toBeGreaterThan(0);
      expect(inked.colours, id).toBeGreaterThan(3);
    }
    expect(await page.locator("tbody tr").count()).toBe(Math.min(500, summary.trades.length));
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: join(SHOTS, "backtest-report.png"), fullPage: true });
    expect(errors).toEqual([]);
    expect(requests).toEqual([]);
    await page.close();
  });
});

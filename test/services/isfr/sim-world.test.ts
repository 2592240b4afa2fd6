import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Decimal } from "decimal.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HlClient, RateBudget } from "../../../src/exchange/index.ts";
import { listen } from "../../../src/http/service.ts";
import { isfrConfig } from "../../../src/services/isfr/config.ts";
import { hlFundingPort } from "../../../src/services/isfr/hl-funding.ts";
import { createIsfrService, type IsfrService } from "../../../src/services/isfr/service.ts";
import { type SimWorld, startSimWorld } from "../../../src/sim/world.ts";

/** ISFR's real sources (yields API shape + exchange funding through the client) read from the sim world. */

let sim: SimWorld;
let client: HlClient;
let svc: IsfrService;
let base: string;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "isfr-sim-"));
  sim = await startSimWorld({ seed: 3 });
  client = await HlClient.create({
    network: "paper",
    apiUrl: sim.url,
    paperWallet: false,
    env: {},
    budget: new RateBudget({ weightPerMinute: 10_000 }),
  });
  svc = createIsfrService(isfrConfig({ DATA_DIR: dir, YIELDS_API_URL: `${sim.url}/yields` }), {
    funding: hlFundingPort(client),
  });
  base = `http://127.0.0.1:${await listen(svc.app, 0)}`;
});

afterAll(async () => {
  await svc.close();
  await client.close();
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("ISFR on the sim world", () => {
  it("publishes every class from the sim's yields pools and perp funding", async () => {
    const snap = await svc.snapshot();
    expect(snap.sources.filter((s) => s.status !== "fresh").map((s) => s.id)).toEqual([]);
    const cur = (await (await fetch(`${base}/isfr/v1/isfr/current`)).json()) as {
      isfr_bps: number;
      rate: number;
      rate_formatted: string;
      components: Record<string, number | null>;
      class_weights_effective: Record<string, number>;
      confidence: number;
    };
    for (const c of ["lending", "structured", "funding", "staking"])
      expect(cur.components[c], c).toEqual(expect.any(Number));
    // The sim's lending pools sit between 2 % and 6 %.
    expect(cur.components.lending).toBeGreaterThanOrEqual(200);
    expect(cur.components.lending).toBeLessThanOrEqual(600);
    const total = Object.values(cur.class_weights_effective).reduce((a, b) => a + b, 0);
    expect(total).toBeCloseTo(1, 12);
    expect(cur.confidence).toBeGreaterThan(0);
    expect(cur.confidence).toBeLessThanOrEqual(1);
    // The published rate rounded half-up in decimal: 0.03085 is "3.09%" (in binary floats 3.0849999…).
    expect(cur.rate_formatted).toBe(
      `${new Decimal(String(cur.rate)).times(100).toFixed(2, Decimal.ROUND_HALF_UP)}%`,
    );
  });
});

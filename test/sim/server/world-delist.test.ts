import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import type { Address } from "../../../src/sim/venue.ts";
import { startSimWorld } from "../../../src/sim/world.ts";

/** `POST /sim/delist`: the operator delists a market of a running world; a restart keeps it delisted. */

const dir = mkdtempSync(join(tmpdir(), "sim-delist-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const USER = "0x00000000000000000000000000000000000de115" as Address;
const START = Date.UTC(2026, 10, 20, 12, 0, 0);
const ETH = 1;

async function post(url: string, body: unknown): Promise<{ status: number; json: unknown }> {
  const r = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: r.status, json: await r.json() };
}

type Meta = [{ universe: { name: string; isDelisted?: boolean }[] }, { markPx: string }[]];

it("settles the market over HTTP, stops the house there, refuses bad requests, and survives a restart", async () => {
  const liveCoins = ["BTC", "ETH"];
  const first = await startSimWorld({
    seed: 5,
    speed: 1e-9,
    startMs: START,
    stateDir: dir,
    liveCoins,
    historyDays: 0,
  });
  let settlementPx: string;
  try {
    const v = first.venue;
    v.info({ type: "clearinghouseState", user: USER });
    const ask = (v.info({ type: "l2Book", coin: "ETH" }) as { levels: { px: string }[][] }).levels[1]![0]!.px;
    const r = v.exchange(
      {
        type: "order",
        orders: [
          {
            a: ETH,
            b: true,
            p: (Number(ask) * 1.01).toFixed(1),
            s: "0.1",
            r: false,
            t: { limit: { tif: "Ioc" } },
          },
        ],
        grouping: "na",
      },
      USER,
      1,
    );
    expect(JSON.stringify(r)).toContain("filled");

    expect(await post(`${first.url}/sim/delist`, { coin: "NOPE" })).toEqual({
      status: 400,
      json: { error: "Unknown coin: NOPE" },
    });
    expect(await post(`${first.url}/sim/delist`, {})).toMatchObject({ status: 400 });
    expect(await post(`${first.url}/sim/delist`, "{oops")).toEqual({
      status: 400,
      json: { error: "Invalid JSON body" },
    });
    const done = await post(`${first.url}/sim/delist`, { coin: "ETH" });
    expect(done.status).toBe(200);
    const report = done.json as {
      status: string;
      coin: string;
      settlementPx: string;
      positionsSettled: number;
    };
    expect(report).toMatchObject({ status: "ok", coin: "ETH" });
    // The user's long and the house's side of it.
    expect(report.positionsSettled).toBeGreaterThanOrEqual(2);
    settlementPx = report.settlementPx;
    expect(await post(`${first.url}/sim/delist`, { coin: "ETH" })).toEqual({
      status: 409,
      json: { error: "ETH is already delisted" },
    });
    const fills = v.info({ type: "userFills", user: USER }) as { dir: string; px: string }[];
    expect(fills[0]).toMatchObject({ dir: "Settlement", px: settlementPx });
    expect(
      (v.info({ type: "clearinghouseState", user: USER }) as { assetPositions: unknown[] }).assetPositions,
    ).toEqual([]);

    // Time goes on: the house neither quotes nor moves the delisted market; BTC still trades.
    first.advance(10 * 60_000);
    const book = v.info({ type: "l2Book", coin: "ETH" }) as { levels: unknown[][] };
    expect(book.levels).toEqual([[], []]);
    const [, ctxs] = v.info({ type: "metaAndAssetCtxs" }) as Meta;
    expect(ctxs[ETH]!.markPx).toBe(settlementPx);
    expect(
      (v.info({ type: "l2Book", coin: "BTC" }) as { levels: unknown[][] }).levels[0]!.length,
    ).toBeGreaterThan(0);
  } finally {
    await first.close();
  }

  const second = await startSimWorld({ speed: 1e-9, stateDir: dir, liveCoins, historyDays: 0 });
  try {
    const w = second.venue;
    const [meta, ctxs] = w.info({ type: "metaAndAssetCtxs" }) as Meta;
    expect(meta.universe[ETH]).toMatchObject({ name: "ETH", isDelisted: true });
    expect(ctxs[ETH]!.markPx).toBe(settlementPx);
    second.advance(5 * 60_000);
    expect((w.info({ type: "l2Book", coin: "ETH" }) as { levels: unknown[][] }).levels).toEqual([[], []]);
    const r = w.exchange(
      {
        type: "order",
        orders: [{ a: ETH, b: true, p: settlementPx, s: "0.1", r: false, t: { limit: { tif: "Gtc" } } }],
        grouping: "na",
      },
      USER,
      2,
    );
    expect(JSON.stringify(r)).toContain("Trading is halted.");
    expect(await post(`${second.url}/sim/delist`, { coin: "ETH" })).toMatchObject({ status: 409 });
    expect(await post(`${second.url}/sim/price`, { coin: "ETH", px: "4000" })).toEqual({
      status: 409,
      json: { error: "ETH is delisted" },
    });
    const state = (await (await fetch(`${second.url}/sim/state`)).json()) as { delisted: string[] };
    expect(state.delisted).toEqual(["ETH"]);
  } finally {
    await second.close();
  }
});

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AttributionContext,
  attributeFills,
  BuilderFiles,
  fileDay,
  type WalletFill,
} from "../../../src/services/points/attribution.ts";
import { canonicalDecimal } from "../../../src/services/points/units.ts";
import { type BuilderFillRow, encodeBuilderFillsFile } from "../../../src/sim/server/builder-fills-file.ts";

const USER = "0xAbCdEf0000000000000000000000000000000001";
const T = Date.UTC(2026, 2, 10, 14, 30, 5, 250);
const NOW = Date.UTC(2026, 2, 20);

function row(over: Partial<BuilderFillRow> = {}): BuilderFillRow {
  return {
    time: "2026-03-10T14:30:05Z",
    user: USER.toLowerCase(),
    coin: "yex:BTCSWP",
    side: "Bid",
    px: "75000.0",
    sz: "0.0100",
    crossed: false,
    special_trade_type: "Na",
    tif: "Alo",
    is_trigger: false,
    counterparty: "0x0000000000000000000000000000000000000009",
    closed_pnl: "0",
    twap_id: "0",
    builder_fee: "0.075",
    ...over,
  };
}

function fill(over: Partial<WalletFill> = {}): WalletFill {
  return { time: T, coin: "yex:BTCSWP", side: "B", px: "75000", sz: "0.01", ...over };
}

function ctx(rows: BuilderFillRow[], over: Partial<AttributionContext> = {}): AttributionContext {
  return {
    user: USER,
    rowsOfDay: (day) => (day === "20260310" ? rows : undefined),
    approvesEligibleBuilder: false,
    nowMs: NOW,
    provisionalDays: 1,
    ...over,
  };
}

describe("builder attribution: matching the daily file", () => {
  it("matches on user (any case), coin, side Bid↔B, equal decimals and the same second", () => {
    expect(attributeFills([fill()], ctx([row()]))).toEqual(["confirmed"]);
    expect(attributeFills([fill({ side: "A" })], ctx([row({ side: "Ask" })]))).toEqual(["confirmed"]);
  });

  it("does not match on a different side, price, size, coin, user or second", () => {
    const rows = [row()];
    for (const f of [
      fill({ side: "A" }),
      fill({ px: "75000.5" }),
      fill({ sz: "0.02" }),
      fill({ coin: "yex:VXX" }),
      fill({ time: T + 1_000 }),
    ]) {
      expect(attributeFills([f], ctx(rows))).toEqual([null]);
    }
    expect(
      attributeFills([fill()], ctx([row({ user: "0x0000000000000000000000000000000000000002" })])),
    ).toEqual([null]);
  });

  it("each file row confirms at most one fill", () => {
    const twins = [fill(), fill({ time: T + 100 })];
    expect(attributeFills(twins, ctx([row()]))).toEqual(["confirmed", null]);
    expect(attributeFills(twins, ctx([row(), row()]))).toEqual(["confirmed", "confirmed"]);
  });

  it("names the file day in UTC", () => {
    expect(fileDay(Date.UTC(2026, 0, 1, 23, 59, 59))).toBe("20260101");
    expect(fileDay(Date.UTC(2026, 0, 2))).toBe("20260102");
  });
});

describe("builder attribution: provisional", () => {
  const today = Date.UTC(2026, 2, 20, 9);
  const paid = fill({ time: today, builderFee: "0.075" });

  it("a fill of today with a builder fee, by a wallet approving an eligible builder, is provisional", () => {
    expect(attributeFills([paid], ctx([], { approvesEligibleBuilder: true }))).toEqual(["provisional"]);
  });

  it("is not provisional without a builder fee, without approval, or once outside the window", () => {
    expect(attributeFills([fill({ time: today })], ctx([], { approvesEligibleBuilder: true }))).toEqual([
      null,
    ]);
    expect(
      attributeFills([fill({ time: today, builderFee: "0" })], ctx([], { approvesEligibleBuilder: true })),
    ).toEqual([null]);
    expect(attributeFills([paid], ctx([]))).toEqual([null]);
    const old = fill({ time: Date.UTC(2026, 2, 18), builderFee: "0.075" });
    expect(attributeFills([old], ctx([], { approvesEligibleBuilder: true }))).toEqual([null]);
    const yesterday = fill({ time: Date.UTC(2026, 2, 19, 23), builderFee: "0.075" });
    expect(attributeFills([yesterday], ctx([], { approvesEligibleBuilder: true }))).toEqual(["provisional"]);
  });
});

describe("builder fill files over HTTP", () => {
  let server: Server;
  let base = "";
  const hits: string[] = [];
  beforeAll(async () => {
    const file = encodeBuilderFillsFile([
      row(),
      row({ coin: "yex:VXX" }),
      row({ user: "0x00000000000000000000000000000000000000AA" }),
    ]);
    server = createServer((req, res) => {
      hits.push(req.url ?? "");
      if (req.url === "/Testnet/builder_fills/0x0d1db1c800184a203915757bbbc0ee3a8e12ffb0/20260310.csv.lz4") {
        res.writeHead(200, { "content-type": "application/octet-stream" });
        res.end(Buffer.from(file));
      } else if (req.url?.includes("/20260311.")) {
        res.writeHead(500);
        res.end();
      } else {
        res.writeHead(403);
        res.end("<Error>AccessDenied</Error>");
      }
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it("fetches the lowercase builder path, keeps only the scored coin, indexes by user, caches", async () => {
    const files = new BuilderFiles({ statsUrl: base, statsNetwork: "Testnet", coin: "yex:BTCSWP" });
    const builder = "0x0D1DB1C800184A203915757BbbC0ee3A8E12FfB0";
    const [a, b] = await Promise.all([files.day(builder, "20260310"), files.day(builder, "20260310")]);
    expect(a).toBe(b);
    expect(a?.get(USER.toLowerCase())?.map((r) => r.coin)).toEqual(["yex:BTCSWP"]);
    expect(a?.get("0x00000000000000000000000000000000000000aa")?.length).toBe(1);
    await files.day(builder, "20260310");
    expect(hits.filter((h) => h.includes("20260310")).length).toBe(1);
  });

  it("403 means not published (null); other failures are errors", async () => {
    const files = new BuilderFiles({ statsUrl: base, statsNetwork: "Testnet", coin: "yex:BTCSWP" });
    expect(await files.day("0x1924b8561eef20e70ede628a296175d358be80e5", "20260310")).toBeNull();
    await expect(files.day("0x1924b8561eef20e70ede628a296175d358be80e5", "20260311")).rejects.toThrow(/500/);
  });
});

describe("decimal keys", () => {
  it("canonicalDecimal makes equal decimals equal text", () => {
    const cases: [string, string][] = [
      ["75000.0", "75000"],
      ["0.0100", "0.01"],
      ["007.50", "7.5"],
      ["-0.000", "0"],
      ["1e3", "1000"],
      ["100", "100"],
      ["0", "0"],
    ];
    for (const [input, out] of cases) expect(canonicalDecimal(input)).toBe(out);
  });
});

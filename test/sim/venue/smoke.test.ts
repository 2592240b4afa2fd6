import { describe, expect, it } from "vitest";
import { ALICE, BOB, BTC, testVenue } from "./helpers.ts";

describe("venue smoke", () => {
  it("rests, crosses and reports fills and positions", () => {
    const t = testVenue();
    expect(t.order(ALICE, { a: BTC, b: false, p: "97000", s: "0.1" })).toEqual({ resting: { oid: 1 } });
    const r = t.order(BOB, { a: BTC, b: true, p: "97100", s: "0.04", t: { limit: { tif: "Ioc" } } });
    expect(r).toEqual({ filled: { totalSz: "0.04", avgPx: "97000", oid: 2 } });
    const bob = t.state(BOB);
    expect(bob.assetPositions[0]?.position.szi).toBe("0.04");
    expect(bob.assetPositions[0]?.position.entryPx).toBe("97000");
    const fills = t.venue.info({ type: "userFills", user: ALICE }) as Record<string, unknown>[];
    expect(fills[0]).toMatchObject({ coin: "BTC", px: "97000", sz: "0.04", side: "A", dir: "Open Short", crossed: false });
    console.log(JSON.stringify(t.venue.info({ type: "metaAndAssetCtxs" })).slice(0, 800));
    console.log(JSON.stringify(bob));
  });
});

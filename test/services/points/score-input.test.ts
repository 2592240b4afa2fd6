import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { DEFAULT_BUILDERS } from "../../../src/services/points/config.ts";
import { scoreFillsInput } from "../../../src/services/points/score-input.ts";
import { BTCSWP_RULES } from "../../../src/services/points/scoring.ts";

const NUNCHI = DEFAULT_BUILDERS[0]!.address;
const BUILDERS = DEFAULT_BUILDERS.map((b) => b.address);
const fills = [
  { time: "2026-03-10T12:00:02Z", px: "100000", sz: "0.01", crossed: true, mark: "100000", builder: NUNCHI },
  {
    time: "2026-03-10T12:00:01Z",
    px: "100000",
    sz: "0.01",
    crossed: false,
    mark: "100000",
    builder: NUNCHI.toLowerCase(),
  },
  { time: 1773144003000, px: "100300", sz: "0.01", crossed: false, mark: "100000", builder: NUNCHI },
  { time: 1773144004000, px: "100000", sz: "0.01", crossed: false, mark: "100000", builder: null },
  { time: 1773144005000, px: "100000", sz: "0.01", crossed: false, mark: null, builder: NUNCHI },
  {
    time: 1773144006000,
    px: "100000",
    sz: "0.01",
    crossed: false,
    mark: "100000",
    builder: "0x0000000000000000000000000000000000000001",
  },
  {
    time: 1773144007000,
    px: "100000",
    sz: "0.01",
    crossed: false,
    mark: "100000",
    builder: NUNCHI,
    provisional: true,
  },
];

describe("hl points score", () => {
  it("scores each fill in input order and totals them", () => {
    const out = scoreFillsInput(BTCSWP_RULES, BUILDERS, fills);
    expect(out.fills.map((f: { points: string }) => f.points)).toEqual([
      "2.25",
      "3",
      "0",
      "0",
      "0",
      "0",
      "3",
    ]);
    expect(out.fills.map((f: { excluded: string | null }) => f.excluded)).toEqual([
      null,
      null,
      "out_of_band",
      "no_builder",
      "no_mark",
      "no_builder",
      null,
    ]);
    expect(out.total_points).toBe("8.25");
    expect(out.provisional_points).toBe("3");
    expect(out.excluded).toEqual({ out_of_band: 1, no_builder: 2, capped: 0, no_mark: 1 });
  });

  it("rejects malformed fills with the field named", () => {
    expect(() => scoreFillsInput(BTCSWP_RULES, BUILDERS, [{ ...fills[0], px: "1,5" }])).toThrow(/px/);
    expect(() => scoreFillsInput(BTCSWP_RULES, BUILDERS, { fills })).toThrow(RangeError);
  });

  it("runs from the command line on stdin", () => {
    const bin = fileURLToPath(new URL("../../../bin/hl.mjs", import.meta.url));
    const ok = spawnSync(process.execPath, [bin, "points", "score"], {
      input: JSON.stringify(fills),
      encoding: "utf8",
    });
    expect(ok.status).toBe(0);
    expect(JSON.parse(ok.stdout).total_points).toBe("8.25");
  });
});

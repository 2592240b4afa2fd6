import { appendFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { readJsonLines } from "../../src/review/jsonl.ts";
import { appendLines } from "../../src/store/append.ts";

const root = mkdtempSync(join(tmpdir(), "append-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("appendLines", () => {
  it("a line torn by a crash stays one bad line; the next record is not swallowed", () => {
    const path = join(root, "logs", "trades.jsonl");
    appendLines(path, [JSON.stringify({ n: 1 })]);
    appendFileSync(path, '{"n": 2, "px": "25'); // the process died mid-write
    appendLines(path, [JSON.stringify({ n: 3 }), JSON.stringify({ n: 4 })]);
    const read = readJsonLines(path, z.object({ n: z.number() }));
    expect(read.records.map((r) => r.n)).toEqual([1, 3, 4]);
    expect(read.badLines).toEqual([2]);
    expect(readFileSync(path, "utf8").endsWith('{"n":4}\n')).toBe(true);
  });

  it("creates the file and its directory; nothing to append writes nothing", () => {
    const path = join(root, "new", "dir", "x.jsonl");
    appendLines(path, []);
    expect(() => readFileSync(path)).toThrow();
    appendLines(path, ["a", "b"]);
    expect(readFileSync(path, "utf8")).toBe("a\nb\n");
  });
});

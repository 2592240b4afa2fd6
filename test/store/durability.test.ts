import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeEach, describe, expect, it, vi } from "vitest";

const synced = vi.hoisted(() => ({ count: 0 }));
vi.mock("node:fs", async (importOriginal) => {
  const fs = await importOriginal<typeof import("node:fs")>();
  return {
    ...fs,
    fsyncSync: (fd: number) => {
      synced.count += 1;
      fs.fsyncSync(fd);
    },
  };
});

const { appendLines } = await import("../../src/store/append.ts");
const { writeFileAtomic } = await import("../../src/store/atomic.ts");

describe("durable writes", () => {
  beforeEach(() => {
    synced.count = 0;
  });

  it("each JSONL append of trade lines is fsynced", () => {
    const path = join(mkdtempSync(join(tmpdir(), "durable-")), "trades.jsonl");
    appendLines(path, ['{"a":1}']);
    appendLines(path, ['{"a":2}']);
    expect(readFileSync(path, "utf8")).toBe('{"a":1}\n{"a":2}\n');
    expect(synced.count).toBe(2);
  });

  it("an atomic write fsyncs the file and, after the rename, its directory", () => {
    const path = join(mkdtempSync(join(tmpdir(), "durable-")), "state.json");
    writeFileAtomic(path, "{}\n");
    expect(readFileSync(path, "utf8")).toBe("{}\n");
    expect(synced.count).toBe(2);
  });
});

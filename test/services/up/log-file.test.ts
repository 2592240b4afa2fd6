import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { ChildLogFile, logLine } from "../../../src/services/up/log-file.ts";
import { logLineProblem } from "../../support/log-scan.ts";

const dir = mkdtempSync(join(tmpdir(), "up-log-file-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const NOW = new Date("2026-11-27T10:00:00.000Z");

describe("a child's log file under hl up", () => {
  it("keeps a child's JSON event as it is and wraps any other line as an output event, scrubbed", () => {
    const event =
      '{"level":"info","time":"2026-11-27T09:59:59.000Z","service":"isfr","event":"start","msg":"isfr listening"}';
    expect(logLine(event, { child: "services", stream: "stderr", pid: 7 }, NOW)).toBe(`${event}\n`);
    const human = logLine(
      "[leaderboard] leaderboard on http://127.0.0.1:8090/ (refresh every 10 s)",
      {
        child: "services",
        stream: "stdout",
        pid: 7,
      },
      NOW,
    );
    expect(JSON.parse(human)).toEqual({
      level: "info",
      time: NOW.toISOString(),
      service: "services",
      pid: 7,
      event: "output",
      stream: "stdout",
      msg: "[leaderboard] leaderboard on http://127.0.0.1:8090/ (refresh every 10 s)",
    });
    const crash = logLine(
      "Error: connect postgres://hl:s3cret@db:5432/hl",
      { child: "services", stream: "stderr", pid: 7 },
      NOW,
    );
    expect(JSON.parse(crash)).toMatchObject({
      level: "warn",
      msg: "Error: connect postgres://hl:***@db:5432/hl",
    });
    for (const line of [human, crash, logLine("{not json", { child: "sim", stream: "stdout", pid: 1 }, NOW)])
      expect(logLineProblem(line)).toBeUndefined();
  });

  it("writes both streams line by line, a line split across chunks once, and what is left at the end", async () => {
    const path = join(dir, "services.log");
    const file = new ChildLogFile(path, "services", () => NOW);
    const out = new PassThrough();
    const err = new PassThrough();
    file.follow(out, "stdout", 11);
    file.follow(err, "stderr", 11);
    out.write("[points] points API on http://127.0.0.1:8300/po");
    out.write("ints/\n\n");
    err.write('{"level":"warn","msg":"a note"}\n');
    err.end("    at crash (file.ts:1:1)");
    const closing = file.close();
    out.end();
    await closing;
    const lines = readFileSync(path, "utf8").split("\n").filter(Boolean);
    for (const line of lines) expect(logLineProblem(`${line}\n`), line).toBeUndefined();
    // The two streams interleave as they come; within each, lines keep their order.
    expect(lines.map((l) => JSON.parse(l).msg).sort()).toEqual(
      ["[points] points API on http://127.0.0.1:8300/points/", "a note", "    at crash (file.ts:1:1)"].sort(),
    );
  });
});

import { describe, expect, it } from "vitest";
import { type LogSink, setLogSink } from "../../src/core/log.ts";
import { asLog } from "../../src/db/log.ts";
import { serviceLog } from "../../src/services/host/types.ts";

const DB_URL = "postgres://hl:s3cret-Pa55@db.internal:5432/hl";

/** The lines the process's loggers write while `work` runs (handed on to the file's collector after). */
function captured(work: () => void): string[] {
  const lines: string[] = [];
  const sink: LogSink = { write: (line) => lines.push(line) };
  const previous = setLogSink(sink);
  try {
    work();
  } finally {
    setLogSink(previous);
  }
  for (const line of lines) previous.write(line);
  return lines;
}

describe("the log of code run without a host's logger", () => {
  it("is the services' pino log: same sink, same fields, secrets scrubbed", () => {
    const lines = captured(() =>
      asLog(undefined).warn({ event: "store_down", reason: `connect ${DB_URL} failed` }, "store unreachable"),
    );
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(line).toMatchObject({
      level: "warn",
      service: "db",
      pid: process.pid,
      event: "store_down",
      reason: "connect postgres://hl:***@db.internal:5432/hl failed",
      msg: "store unreachable",
    });
    expect(new Date(String(line.time)).toISOString()).toBe(line.time);
  });

  it("a service started without a host's logger logs through pino too, naming its replica", () => {
    const lines = captured(() =>
      serviceLog(
        { env: { HL_REPLICA_NAME: "lb-9" }, log: () => undefined, warn: () => undefined },
        "leaderboard",
      ).info({ event: "elected" }, "lb-9 is the writer"),
    );
    expect(lines.map((l) => JSON.parse(l))).toEqual([
      expect.objectContaining({ level: "info", service: "leaderboard", replica: "lb-9", event: "elected" }),
    ]);
  });
});

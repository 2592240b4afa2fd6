import { describe, expect, it } from "vitest";
import { createLogger, type LogSink, setLogSink } from "../../src/core/log.ts";
import { logStarted } from "../../src/core/log-events.ts";
import { scrubSecrets } from "../../src/core/secrets.ts";
import { createHttpApp } from "../../src/http/app.ts";
import { processContext } from "../../src/services/host/types.ts";
import { logLineProblem } from "../support/log-scan.ts";

const DB_URL = "postgres://hl:s3cret-Pa55@db.internal:5432/hl";
const KEY = `0x${"ab".repeat(32)}`;

/** The lines written while `work` runs (the file's own collector gets them back afterwards). */
async function captured(work: () => Promise<void> | void): Promise<string[]> {
  const lines: string[] = [];
  const sink: LogSink = { write: (line) => lines.push(line) };
  const previous = setLogSink(sink);
  try {
    await work();
  } finally {
    setLogSink(previous);
  }
  for (const line of lines) previous.write(line);
  return lines;
}

describe("secrets", () => {
  it("keeps a URL's user and host but not its password, and hides keys, tokens and password parameters", () => {
    expect(scrubSecrets(`connect ${DB_URL} failed`)).toBe(
      "connect postgres://hl:***@db.internal:5432/hl failed",
    );
    expect(scrubSecrets("http://example.com/a@b and postgres://db/hl")).toBe(
      "http://example.com/a@b and postgres://db/hl",
    );
    expect(scrubSecrets(`key ${KEY}`)).toBe("key 0x<redacted>");
    expect(scrubSecrets("Authorization: Bearer abc.def-123")).toBe("Authorization: Bearer <redacted>");
    expect(scrubSecrets("host=db password=hunter2 user=hl")).toBe("host=db password=*** user=hl");
  });

  it("the scan flags a line that is not JSON or carries a secret, so it can fail", () => {
    expect(logLineProblem('{"msg":"ok"}\n')).toBeUndefined();
    expect(logLineProblem("plain text\n")).toBe("not JSON");
    expect(logLineProblem(`{"msg":"${DB_URL}"}\n`)).toBe("carries a URL with a password");
    expect(logLineProblem(`{"msg":"${KEY}"}\n`)).toBe("carries a private key");
    expect(logLineProblem('{"a":1}\n{"b":2}\n')).toBe("not exactly one line");
  });
});

describe("structured log", () => {
  it("writes one JSON object per event with time, level, service, event fields and message", async () => {
    const lines = await captured(() => {
      const log = createLogger("probe");
      logStarted(log, { url: "http://127.0.0.1:8080", network: "testnet" }, "probe listening");
      log.info({ event: "refresh_cycle", network: "testnet", refreshed: 9, failed: 1 }, "refreshed");
    });
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(logLineProblem(line)).toBeUndefined();
    const [started, refresh] = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(started).toMatchObject({
      level: "info",
      service: "probe",
      event: "start",
      url: "http://127.0.0.1:8080",
      network: "testnet",
      msg: "probe listening",
    });
    expect(typeof started!.pid).toBe("number");
    expect(typeof started!.time).toBe("string");
    expect(Number.isNaN(Date.parse(started!.time as string))).toBe(false);
    expect(refresh).toMatchObject({ event: "refresh_cycle", refreshed: 9, failed: 1 });
  });

  it("never writes a database password or a key: not by field name, not inside a message or an error", async () => {
    const lines = await captured(() => {
      const log = createLogger("probe");
      log.info({ databaseUrl: DB_URL, nested: { password: "hunter2", privateKey: KEY } }, "config");
      log.warn(`retrying ${DB_URL}`);
      log.error(
        { event: "store_error", err: new Error(`connect ECONNREFUSED for ${DB_URL} with ${KEY}`) },
        "store register failed",
      );
    });
    expect(lines).toHaveLength(3);
    for (const line of lines) {
      expect(logLineProblem(line)).toBeUndefined();
      expect(line).not.toContain("s3cret");
      expect(line).not.toContain("hunter2");
      expect(line).not.toContain("abab");
    }
    const error = JSON.parse(lines[2]!) as { event: string; err: { message: string; stack: string } };
    expect(error.event).toBe("store_error");
    expect(error.err.message).toContain("postgres://hl:***@db.internal:5432/hl");
  });

  it("a service's failed request is answered without its cause, which is logged scrubbed", async () => {
    const app = createHttpApp({ name: "probe" });
    app.get("/boom", () => {
      throw new Error(`connect ECONNREFUSED ${DB_URL}`);
    });
    const lines = await captured(async () => {
      const res = await app.inject({ method: "GET", url: "/boom" });
      expect(res.statusCode).toBe(500);
      expect(res.body).toBe('{"error":"Internal server error"}');
    });
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ event: "request_failed", service: "probe", status: 500 });
    expect(lines[0]).not.toContain("s3cret");
  });

  it("a process logs its notes as JSON and keeps its console lines for people; the traders log those too", async () => {
    const out: string[] = [];
    const write = process.stdout.write;
    process.stdout.write = ((chunk: string) => {
      out.push(chunk);
      return true;
    }) as typeof process.stdout.write;
    const lines = await captured(() => {
      try {
        const ctx = processContext("traders", { logConsole: true });
        ctx.log("[house-1] simple_mm on ETH-PERP (paper), tick 5s");
        ctx.warn(`[house-1] failed: ${DB_URL} unreachable`);
        processContext("points").log("points API on http://127.0.0.1:8300/points");
      } finally {
        process.stdout.write = write;
      }
    });
    expect(out).toEqual([
      "[house-1] simple_mm on ETH-PERP (paper), tick 5s\n",
      "points API on http://127.0.0.1:8300/points\n",
    ]);
    // A service's console line is not repeated: it logs its start itself when it listens.
    expect(lines).toHaveLength(2);
    expect(lines.map((l) => JSON.parse(l) as Record<string, unknown>)).toMatchObject([
      {
        level: "info",
        service: "traders",
        event: "console",
        msg: "[house-1] simple_mm on ETH-PERP (paper), tick 5s",
      },
      {
        level: "warn",
        service: "traders",
        event: "note",
        msg: "[house-1] failed: postgres://hl:***@db.internal:5432/hl unreachable",
      },
    ]);
  });
});

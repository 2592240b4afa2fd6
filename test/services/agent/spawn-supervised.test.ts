import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runSupervised, SUPERVISOR_PID_ENV } from "../../../src/services/agent/spawn-supervised.ts";

/**
 * What a supervised child is handed to notice its supervisor's death (bin/hl.mjs acts on it): an IPC
 * channel and the supervisor's pid. The job says what it got on stderr, then exits with its argument.
 */
const dir = mkdtempSync(join(tmpdir(), "hl-spawn-supervised-"));
const JOB = join(dir, "job.mjs");
writeFileSync(
  JOB,
  `process.stderr.write("some output\\n" + JSON.stringify({ supervisor: process.env.${SUPERVISOR_PID_ENV}, ppid: process.ppid, channel: Boolean(process.channel) }) + "\\n");
process.exit(Number(process.argv[2]));`,
);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("supervised child", () => {
  it("gets an IPC channel and the supervisor's pid, whatever the environment said", async () => {
    const env = { ...process.env, [SUPERVISOR_PID_ENV]: "1" };
    const err = await runSupervised(JOB, ["3"], { env, timeoutMs: 10_000 }).catch((e: Error) => e);
    expect(JSON.parse((err as Error).message)).toEqual({
      supervisor: String(process.pid),
      ppid: process.pid,
      channel: true,
    });
  });

  it("a one-off resolves when it exits 0 and stops at its time limit", async () => {
    await expect(runSupervised(JOB, ["0"], { env: process.env, timeoutMs: 10_000 })).resolves.toBeUndefined();
    const hang = join(dir, "hang.mjs");
    writeFileSync(hang, "setInterval(() => {}, 1000);");
    await expect(runSupervised(hang, [], { env: process.env, timeoutMs: 300 })).rejects.toThrow(
      "killed by SIGTERM",
    );
  });
});

import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { loadMigrations } from "../../src/db/migrate.ts";
import { usePostgres } from "../support/postgres.ts";

/** `hl db …` as real processes against an embedded Postgres. */

const run = promisify(execFile);
const HL = join(import.meta.dirname, "../../bin/hl.mjs");
const postgres = usePostgres();

async function hl(
  env: NodeJS.ProcessEnv,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [HL, ...args], {
      env: { ...process.env, ...env },
      timeout: 30_000,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? 1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

describe("hl db", () => {
  it("migrate applies every migration once; status lists them applied", async () => {
    const env = { DATABASE_URL: await postgres.current.freshDatabase() };
    const names = loadMigrations().map((m) => m.name);
    const first = await hl(env, "db", "migrate");
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe(`${names.map((n) => `applied ${n}\n`).join("")}${names.length} applied\n`);
    const again = await hl(env, "db", "migrate");
    expect(again.stdout).toBe("schema up to date\n");
    const status = await hl(env, "db", "status");
    expect(status.code).toBe(0);
    expect(status.stdout.trim().split("\n")).toEqual(
      names.map((n) => expect.stringMatching(new RegExp(`^${n}  applied \\d{4}-\\d\\d-\\d\\dT`))),
    );
  });

  it("without a usable DATABASE_URL it exits non-zero with one readable line", async () => {
    const unset = await hl({ DATABASE_URL: "" }, "db", "migrate");
    expect(unset.code).not.toBe(0);
    expect(unset.stderr).toBe("error: DATABASE_URL is not set (postgres://user:password@host:5432/db)\n");
    const wrong = await hl({ DATABASE_URL: "mysql://x@y/z" }, "db", "status");
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toBe("error: DATABASE_URL must be a postgres:// or postgresql:// URL\n");
  });
});

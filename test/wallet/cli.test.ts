import { execFile, spawn } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { decryptKeystore } from "../../src/wallet/keystore-v3.ts";
import { ADDR_A, KEY_A, tempEnv } from "./helpers.ts";

const run = promisify(execFile);
const HL = join(import.meta.dirname, "../../bin/hl.mjs");

function hl(
  args: string[],
  env: NodeJS.ProcessEnv,
  input?: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("node", [HL, ...args], { env: { ...process.env, ...env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on("data", (c: Buffer) => {
      stderr += c.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(input ?? "");
  });
}

describe("hl wallet (processes)", () => {
  it("auto --json prints one line with the password but never the key; the files are private", async () => {
    const env = { ...tempEnv(), HL_PRIVATE_KEY: "", HL_KEYSTORE_ADDRESS: "" };
    const { stdout } = await run("node", [HL, "wallet", "auto", "--json"], {
      env: { ...process.env, ...env },
      timeout: 60_000,
    });
    expect(stdout.trim().split("\n")).toHaveLength(1);
    const r = JSON.parse(stdout) as { address: string; password: string; keystore: string; env_file: string };
    expect(Object.keys(r).sort()).toEqual(["address", "env_file", "keystore", "password"]);
    expect(statSync(r.keystore).mode & 0o777).toBe(0o600);
    expect(statSync(r.env_file).mode & 0o777).toBe(0o600);
    const { privateKey } = await decryptKeystore(JSON.parse(readFileSync(r.keystore, "utf8")), r.password);
    expect(stdout).not.toContain(privateKey.slice(2));
  }, 60_000);

  it("import from stdin, then export refuses to print the key anywhere but a terminal", async () => {
    const env = { ...tempEnv(), HL_PRIVATE_KEY: "", HL_KEYSTORE_ADDRESS: "", HL_KEYSTORE_PASSWORD: "secret" };
    const imported = await hl(
      ["wallet", "import", "--key-stdin", "--password-stdin"],
      env,
      `${KEY_A}\nsecret\n`,
    );
    expect(imported.code).toBe(0);
    expect(imported.stdout).toContain(`${ADDR_A.slice(2)}.json`);
    expect(imported.stdout + imported.stderr).not.toContain(KEY_A.slice(2));
    const exported = await hl(["wallet", "export", "--reveal"], env);
    expect(exported.code).toBe(1);
    expect(exported.stderr).toContain("refusing to print a private key");
    expect(exported.stdout + exported.stderr).not.toContain(KEY_A.slice(2));
  }, 60_000);
});

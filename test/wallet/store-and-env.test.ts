import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { createKeystore } from "../../src/wallet/auto.ts";
import { mergeEnvFile, readEnvFile } from "../../src/wallet/env-file.ts";
import { agentHome, envFilePath, keystoreDir } from "../../src/wallet/home.ts";
import { listWallets, loadKeystore } from "../../src/wallet/keystore-store.ts";
import { ADDR_A, ADDR_B, FAST, KEY_A, KEY_B, tempEnv } from "./helpers.ts";

const mode = (path: string) => statSync(path).mode & 0o777;

describe("keystore directory", () => {
  it("HL_AGENT_HOME overrides ~/.hl-agent", () => {
    expect(agentHome({ HL_AGENT_HOME: "/tmp/x" })).toBe("/tmp/x");
    expect(agentHome({})).toMatch(/\.hl-agent$/);
  });

  it("writes <address>.json with mode 0600 in a 0700 directory", async () => {
    const env = tempEnv();
    const path = await createKeystore(KEY_A, "pw", { ...FAST, env });
    expect(path).toBe(join(keystoreDir(env), `${ADDR_A.slice(2)}.json`));
    expect(mode(path)).toBe(0o600);
    expect(mode(keystoreDir(env))).toBe(0o700);
    expect(mode(agentHome(env))).toBe(0o700);
    expect(readFileSync(path, "utf8")).not.toContain(KEY_A.slice(2));
  });

  it("never replaces an existing keystore", async () => {
    const env = tempEnv();
    await createKeystore(KEY_A, "pw", { ...FAST, env });
    await expect(createKeystore(KEY_A, "other", { ...FAST, env })).rejects.toThrow(/already exists/);
  });

  it("lists keystores sorted by address, accepting 0x-named and foreign-named files, ignoring junk", async () => {
    const env = tempEnv();
    expect(listWallets(env)).toEqual([]);
    await createKeystore(KEY_A, "pw", { ...FAST, env });
    const other = await createKeystore(KEY_B, "pw", { ...FAST, env });
    const renamed = join(keystoreDir(env), "UTC--2026-01-01--geth-style.json");
    writeFileSync(renamed, readFileSync(other));
    writeFileSync(join(keystoreDir(env), "notes.json"), "{}");
    writeFileSync(join(keystoreDir(env), "readme.txt"), "hi");
    const list = listWallets(env);
    expect(list.map((w) => w.address)).toEqual([ADDR_B, ADDR_B, ADDR_A]);
    expect(loadKeystore(ADDR_A.toUpperCase().replace("0X", "0x"), env).path).toContain(ADDR_A.slice(2));
    expect(() => loadKeystore(`0x${"1".repeat(40)}`, env)).toThrow(/no keystore for/);
  });
});

describe("env file", () => {
  it("merges keys without clobbering other lines, comments or order", () => {
    const env = tempEnv();
    const path = envFilePath(env);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(
      path,
      "# my settings\nANTHROPIC_API_KEY=sk-abc\nexport HL_KEYSTORE_PASSWORD=old\nHL_NETWORK=testnet\n",
    );
    mergeEnvFile(path, { HL_KEYSTORE_PASSWORD: "new", HL_KEYSTORE_ADDRESS: ADDR_A });
    expect(readFileSync(path, "utf8")).toBe(
      `# my settings\nANTHROPIC_API_KEY=sk-abc\nHL_KEYSTORE_PASSWORD=new\nHL_NETWORK=testnet\nHL_KEYSTORE_ADDRESS=${ADDR_A}\n`,
    );
    expect(mode(path)).toBe(0o600);
  });

  it("creates the file (0600) and its directory (0700) when missing", () => {
    const env = tempEnv();
    const path = envFilePath(env);
    mergeEnvFile(path, { A: "1" });
    expect(readFileSync(path, "utf8")).toBe("A=1\n");
    expect(mode(path)).toBe(0o600);
    expect(mode(dirname(path))).toBe(0o700);
  });

  it("drops duplicate assignments of a replaced key so none shadows the new value", () => {
    const env = tempEnv();
    const path = envFilePath(env);
    mergeEnvFile(path, { X: "keep" });
    writeFileSync(path, "P=1\nX=keep\nP=2\n");
    mergeEnvFile(path, { P: "3" });
    expect(readFileSync(path, "utf8")).toBe("P=3\nX=keep\n");
    expect(readEnvFile(path)).toEqual({ P: "3", X: "keep" });
  });

  it("reads export prefixes, quotes and comments", () => {
    const env = tempEnv();
    const path = envFilePath(env);
    mergeEnvFile(path, { A: "1" });
    writeFileSync(path, "export A='x y'\n# B=2\nC=\"q\"\nD=a=b\n  \nnot an assignment\n");
    expect(readEnvFile(path)).toEqual({ A: "x y", C: "q", D: "a=b" });
    expect(readEnvFile(join(path, "missing"))).toEqual({});
  });

  it("refuses values that would break the file", () => {
    const env = tempEnv();
    expect(() => mergeEnvFile(envFilePath(env), { A: "x\nEVIL=1" })).toThrow(/refusing/);
  });
});

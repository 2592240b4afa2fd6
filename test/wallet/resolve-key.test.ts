import { readFileSync } from "node:fs";
import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { UserError } from "../../src/core/errors.ts";
import { createKeystore, walletAuto } from "../../src/wallet/auto.ts";
import { mergeEnvFile } from "../../src/wallet/env-file.ts";
import { envFilePath } from "../../src/wallet/home.ts";
import { decryptKeystore } from "../../src/wallet/keystore-v3.ts";
import { passwordVarFor, resolvePrivateKey, resolvePrivateKeyIfAny } from "../../src/wallet/resolve-key.ts";
import { ADDR_A, ADDR_B, FAST, KEY_A, KEY_B, tempEnv } from "./helpers.ts";

describe("resolvePrivateKey", () => {
  it("nothing configured: null, or a clear error naming the options", async () => {
    const env = tempEnv();
    expect(await resolvePrivateKeyIfAny({ env })).toBeNull();
    await expect(resolvePrivateKey({ env })).rejects.toThrow(/HL_PRIVATE_KEY.*hl wallet auto/);
  });

  it("HL_PRIVATE_KEY, validated without echoing it", async () => {
    const key = await resolvePrivateKey({ env: tempEnv({ HL_PRIVATE_KEY: KEY_A.slice(2) }) });
    expect(key.address).toBe(ADDR_A);
    expect(key.privateKey).toBe(KEY_A);
    expect(key.source).toBe("HL_PRIVATE_KEY");
    const err = await resolvePrivateKey({ env: tempEnv({ HL_PRIVATE_KEY: "0xnot-a-key-123" }) }).catch(
      (e: Error) => e,
    );
    expect(err).toBeInstanceOf(UserError);
    expect((err as Error).message).not.toContain("not-a-key-123");
  });

  it("the single keystore, with HL_KEYSTORE_PASSWORD from the environment", async () => {
    const env = tempEnv({ HL_KEYSTORE_PASSWORD: "pw" });
    await createKeystore(KEY_A, "pw", { ...FAST, env });
    const key = await resolvePrivateKey({ env });
    expect(key.address).toBe(ADDR_A);
    expect(key.source).toContain("the only keystore");
  });

  it("the single keystore, with the password from the env file", async () => {
    const env = tempEnv();
    await createKeystore(KEY_A, "pw", { ...FAST, env });
    mergeEnvFile(envFilePath(env), { HL_KEYSTORE_PASSWORD: "pw" });
    expect((await resolvePrivateKey({ env })).privateKey).toBe(KEY_A);
  });

  it("a keystore without a password, or with the wrong one, is a clear error", async () => {
    const env = tempEnv();
    await createKeystore(KEY_A, "pw", { ...FAST, env });
    await expect(resolvePrivateKey({ env })).rejects.toThrow(/needs a password/);
    await expect(resolvePrivateKey({ env: { ...env, HL_KEYSTORE_PASSWORD: "nope" } })).rejects.toThrow(
      /wrong password/,
    );
  });

  it("several keystores and none chosen: an error listing them — never the alphabetically first", async () => {
    const env = tempEnv({ HL_KEYSTORE_PASSWORD: "pw" });
    await createKeystore(KEY_A, "pw", { ...FAST, env });
    await createKeystore(KEY_B, "pw", { ...FAST, env });
    const err = await resolvePrivateKey({ env }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(UserError);
    expect((err as Error).message).toContain("2 keystores");
    expect((err as Error).message).toContain(ADDR_A);
    expect((err as Error).message).toContain(ADDR_B);
    expect((err as Error).message).toContain("--keystore");
  });

  it("an explicit choice resolves the ambiguity: --keystore, HL_KEYSTORE_ADDRESS, or the env file's selection", async () => {
    const env = tempEnv();
    await createKeystore(KEY_A, "pa", { ...FAST, env });
    await createKeystore(KEY_B, "pb", { ...FAST, env });
    expect((await resolvePrivateKey({ env, keystore: ADDR_B, password: "pb" })).address).toBe(ADDR_B);
    const perWallet = { ...env, [passwordVarFor(ADDR_A)]: "pa", [passwordVarFor(ADDR_B)]: "pb" };
    expect((await resolvePrivateKey({ env: { ...perWallet, HL_KEYSTORE_ADDRESS: ADDR_A } })).address).toBe(
      ADDR_A,
    );
    mergeEnvFile(envFilePath(env), { HL_KEYSTORE_ADDRESS: ADDR_B });
    expect((await resolvePrivateKey({ env: perWallet })).address).toBe(ADDR_B);
  });

  it("an explicit keystore wins over HL_PRIVATE_KEY; HL_PRIVATE_KEY wins over the keystore directory", async () => {
    const env = tempEnv({ HL_PRIVATE_KEY: KEY_B, HL_KEYSTORE_PASSWORD: "pw" });
    await createKeystore(KEY_A, "pw", { ...FAST, env });
    expect((await resolvePrivateKey({ env })).address).toBe(ADDR_B);
    expect((await resolvePrivateKey({ env, keystore: ADDR_A })).address).toBe(ADDR_A);
  });

  it("accepts a keystore file path", async () => {
    const env = tempEnv();
    const path = await createKeystore(KEY_A, "pw", { ...FAST, env });
    expect((await resolvePrivateKey({ env, keystore: path, password: "pw" })).address).toBe(ADDR_A);
    await expect(resolvePrivateKey({ env, keystore: "/nope/x.json", password: "pw" })).rejects.toThrow(
      /not found/,
    );
  });

  it("the resolved key never shows in JSON, inspect or a spread", async () => {
    const key = await resolvePrivateKey({ env: tempEnv({ HL_PRIVATE_KEY: KEY_A }) });
    const bare = KEY_A.slice(2);
    expect(JSON.stringify(key)).not.toContain(bare);
    expect(inspect(key)).not.toContain(bare);
    expect(JSON.stringify({ ...key })).not.toContain(bare);
    expect(String(Object.values(key))).not.toContain(bare);
  });
});

describe("walletAuto", () => {
  it("creates a keystore with a random 32-character password and returns no private key", async () => {
    const env = tempEnv();
    const r = await walletAuto({ env, ...FAST });
    expect(r.password).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(r.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(r.address).not.toBe(r.address.toLowerCase()); // checksummed
    expect(r.env_file).toBeUndefined();
    expect(Object.keys(r).sort()).toEqual(["address", "keystore", "password"]);
    const { privateKey } = await decryptKeystore(JSON.parse(readFileSync(r.keystore, "utf8")), r.password);
    expect(JSON.stringify(r)).not.toContain(privateKey.slice(2));
    expect((await walletAuto({ env, ...FAST })).password).not.toBe(r.password);
  });

  it("save_env writes the env file (0600) and the new wallet then resolves on its own", async () => {
    const env = tempEnv();
    mergeEnvFile(envFilePath(env), { ANTHROPIC_API_KEY: "sk-keep-me" });
    const r = await walletAuto({ env, saveEnv: true, ...FAST });
    expect(r.env_file).toBe(envFilePath(env));
    const text = readFileSync(r.env_file!, "utf8");
    expect(text).toContain("ANTHROPIC_API_KEY=sk-keep-me");
    expect(text).toContain(`HL_KEYSTORE_PASSWORD=${r.password}`);
    expect((await resolvePrivateKey({ env })).address).toBe(r.address.toLowerCase());
  });

  it("a second auto wallet keeps the first wallet's password usable", async () => {
    const env = tempEnv();
    const first = await walletAuto({ env, saveEnv: true, ...FAST });
    const second = await walletAuto({ env, saveEnv: true, ...FAST });
    expect((await resolvePrivateKey({ env })).address).toBe(second.address.toLowerCase());
    expect((await resolvePrivateKey({ env, keystore: first.address })).address).toBe(
      first.address.toLowerCase(),
    );
  });

  it("an env file from the predecessor (only HL_KEYSTORE_PASSWORD) keeps its wallet usable after auto (it used to be overwritten)", async () => {
    const env = tempEnv();
    await createKeystore(KEY_A, "old-password", { ...FAST, env });
    mergeEnvFile(envFilePath(env), { HL_KEYSTORE_PASSWORD: "old-password" });
    await walletAuto({ env, saveEnv: true, ...FAST });
    expect(readFileSync(envFilePath(env), "utf8")).toContain(`${passwordVarFor(ADDR_A)}=old-password`);
    expect((await resolvePrivateKey({ env, keystore: ADDR_A })).privateKey).toBe(KEY_A);
  });
});

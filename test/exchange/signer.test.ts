import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterEach, describe, expect, it } from "vitest";
import { HlClient } from "../../src/exchange/client.ts";
import { ExchangeError, RejectedError, redactSecrets } from "../../src/exchange/errors.ts";
import { loadOrCreatePaperWallet, paperKeyPath, resolveSigner } from "../../src/exchange/signer.ts";
import { startTogether } from "../fixtures/start-together.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tempDataDir(): string {
  const d = mkdtempSync(join(tmpdir(), "hl-exchange-"));
  dirs.push(d);
  return d;
}

describe("resolveSigner", () => {
  it("uses HL_PRIVATE_KEY when nothing explicit is given", async () => {
    const key = generatePrivateKey();
    const resolved = await resolveSigner({}, { HL_PRIVATE_KEY: key });
    expect(resolved?.address).toBe(privateKeyToAccount(key).address);
    expect(resolved?.source).toBe("HL_PRIVATE_KEY");
  });

  it("accepts a key without 0x and prefers an explicit key over the environment", async () => {
    const key = generatePrivateKey();
    const other = generatePrivateKey();
    const resolved = await resolveSigner({ privateKey: key.slice(2) }, { HL_PRIVATE_KEY: other });
    expect(resolved?.address).toBe(privateKeyToAccount(key).address);
  });

  it("returns undefined without any key (read-only client)", async () => {
    expect(await resolveSigner({}, {})).toBeUndefined();
  });

  it("never puts a malformed key into the error message", async () => {
    const almost = `${generatePrivateKey()}ff`; // 66 hex digits: not a key, but secret-looking
    const err = await resolveSigner({}, { HL_PRIVATE_KEY: almost }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toBe(
      "HL_PRIVATE_KEY is not a private key (expected 0x followed by 64 hex digits)",
    );
    expect((err as Error).message).not.toContain(almost.slice(2, 20));
  });
});

describe("secrets never reach messages", () => {
  it("redacts anything shaped like a private key from ExchangeError messages", () => {
    const key = generatePrivateKey();
    const err = new RejectedError(`could not sign with ${key} because`);
    expect(err.message).not.toContain(key);
    expect(err.message).toContain("0x<redacted>");
    expect(redactSecrets(`a ${key} b`)).toBe("a 0x<redacted> b");
    // addresses (20 bytes) stay readable
    const address = privateKeyToAccount(key).address;
    expect(new ExchangeError(`user ${address}`).message).toContain(address);
  });

  it("keeps the key out of the client object's enumerable state and its JSON", async () => {
    const key = generatePrivateKey();
    const client = await HlClient.create({
      network: "testnet",
      privateKey: key,
      apiUrl: "http://127.0.0.1:9",
    });
    const dump = JSON.stringify(client, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v));
    expect(dump).not.toContain(key.slice(2));
    expect(String(client.signerSource)).not.toContain(key.slice(2));
    const err = await client.allMids().catch((e: unknown) => e);
    expect((err as Error).message).not.toContain(key.slice(2));
  });
});

describe("paper wallet", () => {
  it("is created once with mode 0600 and reused by later runs", () => {
    const env = { DATA_DIR: tempDataDir() };
    const first = loadOrCreatePaperWallet(env);
    expect(first.created).toBe(true);
    expect(first.path).toBe(paperKeyPath(env));
    expect(statSync(first.path).mode & 0o777).toBe(0o600);
    const second = loadOrCreatePaperWallet(env);
    expect(second.created).toBe(false);
    expect(second.address).toBe(first.address);
  });

  it("two first runs at once end up on one account (one creates, the other adopts it)", {
    timeout: 60_000,
  }, async () => {
    const dir = tempDataDir();
    const outputs = await startTogether(
      join(import.meta.dirname, "../fixtures/paper-wallet-race.mjs"),
      [dir],
      2,
    );
    const results = outputs.map((o) => o.trim().split(" "));
    expect(results[0]![0]).toBe(results[1]![0]);
    expect(results.map((r) => r[1]).sort()).toEqual(["false", "true"]);
    expect(loadOrCreatePaperWallet({ DATA_DIR: dir }).address).toBe(results[0]![0]);
  });

  it("reports a corrupt key file instead of silently replacing the account", () => {
    const env = { DATA_DIR: tempDataDir() };
    const path = loadOrCreatePaperWallet(env).path;
    writeFileSync(path, "{ not json");
    expect(() => loadOrCreatePaperWallet(env)).toThrow(/corrupt/);
    expect(readFileSync(path, "utf8")).toBe("{ not json");
  });

  it("is what a paper client signs with when no key is configured — and only on paper", async () => {
    const env = { DATA_DIR: tempDataDir() };
    const paper = await HlClient.create({ network: "paper", env, apiUrl: "http://127.0.0.1:9" });
    expect(paper.address).toBe(loadOrCreatePaperWallet(env).address);
    expect(paper.paperWallet?.path).toBe(paperKeyPath(env));
    const testnet = await HlClient.create({ network: "testnet", env, apiUrl: "http://127.0.0.1:9" });
    expect(testnet.address).toBeUndefined();
    await expect(testnet.order({ instrument: "ETH-PERP", side: "buy", size: 1, price: 1 })).rejects.toThrow(
      /no wallet configured/,
    );
  });
});

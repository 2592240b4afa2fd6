import { readFileSync } from "node:fs";
import { join } from "node:path";
import { decryptKeystoreJson, encryptKeystoreJson } from "ethers";
import { describe, expect, it } from "vitest";
import {
  decryptKeystore,
  encryptKeystore,
  KeystoreError,
  parseKeystore,
} from "../../src/wallet/keystore-v3.ts";

const FIXTURES = join(import.meta.dirname, "../fixtures");
const vector = JSON.parse(readFileSync(join(FIXTURES, "keystore-v3-scrypt-n262144-r1-p8.json"), "utf8"));
const expected = JSON.parse(
  readFileSync(join(FIXTURES, "keystore-v3-scrypt-n262144-r1-p8.expected.json"), "utf8"),
) as {
  password: string;
  private_key: string;
  address: string;
};

/** The two test vectors of the Web3 Secret Storage definition (password "testpassword"). */
const WIKI_SECRET = "0x7a28b5ba57c53603b0b07b56bba752f7784bf506fa95edc395f5cf6c7514fe9d";
const WIKI_ADDRESS = "0x008aeeda4d805471df9b2a5b0f38a0c3bcba786b";
const wikiPbkdf2 = {
  crypto: {
    cipher: "aes-128-ctr",
    cipherparams: { iv: "6087dab2f9fdbbfaddc31a909735c1e6" },
    ciphertext: "5318b4d5bcd28de64ee5559e671353e16f075ecae9f99c7a79a38af5f869aa46",
    kdf: "pbkdf2",
    kdfparams: {
      c: 262144,
      dklen: 32,
      prf: "hmac-sha256",
      salt: "ae3cd4e7013836a3df6bd7241b12db061dbe2c6785853cce422d148a624ce0bd",
    },
    mac: "517ead924a9d0dc3124507e3393d175ce3ff7c1e96529c6c555ce9e51205e9b2",
  },
  id: "3198bc9c-6672-5ab3-d995-4942343ae5b6",
  version: 3,
};
const wikiScrypt = {
  crypto: {
    cipher: "aes-128-ctr",
    cipherparams: { iv: "83dbcc02d8ccb40e466191a123791e0e" },
    ciphertext: "d172bf743a674da9cdad04534d56926ef8358534d458fffccd4e6ad2fbde479c",
    kdf: "scrypt",
    kdfparams: {
      dklen: 32,
      n: 262144,
      p: 8,
      r: 1,
      salt: "ab0c7876052600dd703518d6fc3fe8984592145b591fc8fb5c6d43190334ba19",
    },
    mac: "2103ac29920d71da29f15d75b4a16dbe95cfd7ff8faea1056c33131d846e3097",
  },
  id: "3198bc9c-6672-5ab3-d995-4942343ae5b6",
  version: 3,
};

const LOW = { scrypt: { n: 1024, r: 8, p: 1 } };
const KEY = "0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318" as const;

describe("keystore v3", () => {
  it("decrypts eth-account's default format (scrypt n=2^18, r=1, p=8): the fixture and the definition's scrypt vector", async () => {
    // each derivation runs in its own worker thread, so the two proceed in parallel
    const [fixture, wiki] = await Promise.all([
      decryptKeystore(vector, expected.password),
      decryptKeystore(wikiScrypt, "testpassword"),
    ]);
    expect(fixture.privateKey).toBe(expected.private_key);
    expect(fixture.address).toBe(expected.address);
    expect(wiki.privateKey).toBe(WIKI_SECRET);
    expect(wiki.address).toBe(WIKI_ADDRESS);
  }, 20_000);

  it("decrypts the definition's PBKDF2-SHA256 vector", async () => {
    const r = await decryptKeystore(wikiPbkdf2, "testpassword");
    expect(r.privateKey).toBe(WIKI_SECRET);
    expect(r.address).toBe(WIKI_ADDRESS);
  });

  it("a wrong password says so, and never shows the key", async () => {
    const err = await decryptKeystore(wikiPbkdf2, "testpassworD").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KeystoreError);
    expect((err as Error).message).toMatch(/wrong password/);
    expect((err as Error).message).not.toContain(WIKI_SECRET.slice(2));
  });

  it("round-trips a key (low N) and writes the eth-keyfile shape", async () => {
    const ks = await encryptKeystore(KEY, "pw", LOW);
    expect(ks.address).toBe("2c7536e3605d9c16a7a3d7b1898e529396a65c23");
    expect(ks.crypto).toMatchObject({
      cipher: "aes-128-ctr",
      kdf: "scrypt",
      kdfparams: { n: 1024, r: 8, p: 1, dklen: 32 },
    });
    expect(ks.version).toBe(3);
    expect(JSON.stringify(ks)).not.toContain(KEY.slice(2));
    expect((await decryptKeystore(ks, "pw")).privateKey).toBe(KEY);
    const again = await encryptKeystore(KEY, "pw", LOW);
    expect(again.crypto.ciphertext).not.toBe(ks.crypto.ciphertext); // fresh salt and iv
  });

  it("reads r=1 files past OpenSSL's limit through the pure-JS scrypt (n=2^16, r=1, p=2)", async () => {
    const ks = await encryptKeystore(KEY, "pw", { scrypt: { n: 2 ** 16, r: 1, p: 2 } });
    expect((await decryptKeystore(ks, "pw")).privateKey).toBe(KEY);
  });

  it("interoperates with ethers both ways", async () => {
    const ours = await encryptKeystore(KEY, "pässword", LOW);
    const byEthers = await decryptKeystoreJson(JSON.stringify(ours), "pässword");
    expect(byEthers.privateKey).toBe(KEY);
    const theirs = await encryptKeystoreJson({ address: byEthers.address, privateKey: KEY }, "pw", {
      scrypt: { N: 1024 },
    });
    expect((await decryptKeystore(JSON.parse(theirs), "pw")).privateKey).toBe(KEY);
  });

  it("accepts geth's capitalised Crypto key", async () => {
    const ks = await encryptKeystore(KEY, "pw", LOW);
    const { crypto, ...rest } = ks;
    expect((await decryptKeystore({ ...rest, Crypto: crypto }, "pw")).privateKey).toBe(KEY);
  });

  it("refuses files it cannot or should not read", async () => {
    expect(() => parseKeystore({ version: 1 })).toThrow(KeystoreError);
    const hostile = {
      ...wikiScrypt,
      crypto: { ...wikiScrypt.crypto, kdfparams: { ...wikiScrypt.crypto.kdfparams, n: 2 ** 30 } },
    };
    await expect(decryptKeystore(hostile, "x")).rejects.toThrow(/not supported/);
    const cbc = { ...wikiPbkdf2, crypto: { ...wikiPbkdf2.crypto, cipher: "aes-128-cbc" } };
    expect(() => parseKeystore(cbc)).toThrow(KeystoreError);
  });

  it("detects a file whose address does not match its key", async () => {
    const ks = await encryptKeystore(KEY, "pw", LOW);
    await expect(decryptKeystore({ ...ks, address: "0".repeat(40) }, "pw")).rejects.toThrow(/claims address/);
  });

  it("refuses to encrypt something that is not a key", async () => {
    await expect(encryptKeystore("0x1234" as `0x${string}`, "pw", LOW)).rejects.toThrow(KeystoreError);
  });
});

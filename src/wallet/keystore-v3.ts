import {
  createCipheriv,
  createDecipheriv,
  pbkdf2,
  randomBytes,
  randomUUID,
  scrypt,
  timingSafeEqual,
} from "node:crypto";
import { promisify } from "node:util";
import { Worker } from "node:worker_threads";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { z } from "zod";
import { UserError } from "../core/errors.ts";
import { viemAccounts } from "./viem-accounts.ts";

/** A wallet-file problem the user can act on (wrong password, unsupported or damaged file). Never holds a key. */
export class KeystoreError extends UserError {
  override name = "KeystoreError";
}

export type Hex = `0x${string}`;

const hex = (bytes: number) => z.string().regex(new RegExp(`^(0x)?[0-9a-fA-F]{${bytes * 2}}$`));
const anyHex = z.string().regex(/^(0x)?([0-9a-fA-F]{2})+$/);

const scryptParams = z.object({
  dklen: z.number().int().min(32).max(64),
  n: z.number().int().min(2),
  r: z.number().int().min(1),
  p: z.number().int().min(1),
  salt: anyHex,
});
const pbkdf2Params = z.object({
  dklen: z.number().int().min(32).max(64),
  c: z.number().int().min(1),
  prf: z.literal("hmac-sha256"),
  salt: anyHex,
});

/** Web3 Secret Storage v3 (the file geth, eth-account, ethers and MetaMask write). Keys are read case-insensitively. */
const keystoreSchema = z.object({
  version: z.literal(3),
  id: z.string().optional(),
  address: z.string().optional(),
  crypto: z.discriminatedUnion("kdf", [
    z.object({
      cipher: z.literal("aes-128-ctr"),
      cipherparams: z.object({ iv: hex(16) }),
      ciphertext: anyHex,
      kdf: z.literal("scrypt"),
      kdfparams: scryptParams,
      mac: hex(32),
    }),
    z.object({
      cipher: z.literal("aes-128-ctr"),
      cipherparams: z.object({ iv: hex(16) }),
      ciphertext: anyHex,
      kdf: z.literal("pbkdf2"),
      kdfparams: pbkdf2Params,
      mac: hex(32),
    }),
  ]),
});
export type KeystoreV3 = z.infer<typeof keystoreSchema>;

/** Work factors a file may ask for before we refuse (a hostile file must not exhaust memory or time). */
const LIMITS = { maxScryptN: 2 ** 20, maxScryptR: 32, maxScryptP: 16, maxPbkdf2C: 10_000_000 };

/** What new keystores use: geth's standard scrypt (n=2^18, r=8, p=1), fast with Node's native scrypt. */
const STANDARD_SCRYPT = { n: 2 ** 18, r: 8, p: 1 } as const;

const unhex = (s: string) => Buffer.from(s.replace(/^0x/, ""), "hex");

function lowerKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(lowerKeys);
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.toLowerCase(), lowerKeys(v)]));
  }
  return value;
}

/** Parse a keystore file's JSON (geth writes `Crypto`, others `crypto`). */
export function parseKeystore(json: unknown): KeystoreV3 {
  const parsed = keystoreSchema.safeParse(lowerKeys(json));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new KeystoreError(
      `not a supported keystore (v3, aes-128-ctr, scrypt or pbkdf2-sha256): ${issue?.path.join(".")} ${issue?.message}`,
    );
  }
  return parsed.data;
}

const nativeScrypt = promisify(scrypt) as (
  password: Buffer,
  salt: Buffer,
  keylen: number,
  opts: { N: number; r: number; p: number; maxmem: number },
) => Promise<Buffer>;
const nativePbkdf2 = promisify(pbkdf2);

async function deriveKey(password: string, crypto: KeystoreV3["crypto"]): Promise<Buffer> {
  // Raw UTF-8, as geth and eth-account do (ethers' NFKC step would break non-ASCII interop with them).
  const pw = Buffer.from(password, "utf8");
  if (crypto.kdf === "pbkdf2") {
    const { c, dklen, salt } = crypto.kdfparams;
    if (c > LIMITS.maxPbkdf2C) throw new KeystoreError(`keystore asks for ${c} pbkdf2 rounds; refusing`);
    return nativePbkdf2(pw, unhex(salt), c, dklen, "sha256");
  }
  const { n, r, p, dklen, salt } = crypto.kdfparams;
  if (n > LIMITS.maxScryptN || (n & (n - 1)) !== 0 || r > LIMITS.maxScryptR || p > LIMITS.maxScryptP) {
    throw new KeystoreError(`keystore scrypt parameters n=${n} r=${r} p=${p} are not supported`);
  }
  // OpenSSL refuses N ≥ 2^(16·r): eth-account's r=1, p=8 files (n=2^18) need the pure-JS scrypt.
  if (n < 2 ** (16 * r)) {
    return nativeScrypt(pw, unhex(salt), dklen, { N: n, r, p, maxmem: 128 * n * r * 2 + 64 * 1024 * 1024 });
  }
  return pureJsScrypt(pw, unhex(salt), { N: n, r, p, dkLen: dklen });
}

/** @noble/hashes v2 derives the r=1 parameters OpenSSL refuses; run it in a worker so the event loop stays free. */
const NOBLE_SCRYPT_URL = import.meta.resolve("@noble/hashes/scrypt.js");
const SCRYPT_WORKER = `
const { parentPort, workerData } = require("node:worker_threads");
import(workerData.url)
  .then(({ scrypt }) => parentPort.postMessage({ key: scrypt(workerData.password, workerData.salt, workerData.opts) }))
  .catch((e) => parentPort.postMessage({ error: String((e && e.message) || e) }));
`;

function pureJsScrypt(
  password: Buffer,
  salt: Buffer,
  opts: { N: number; r: number; p: number; dkLen: number },
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(SCRYPT_WORKER, {
      eval: true,
      workerData: {
        url: NOBLE_SCRYPT_URL,
        password: new Uint8Array(password),
        salt: new Uint8Array(salt),
        opts,
      },
    });
    worker.once("message", (m: { key?: Uint8Array; error?: string }) => {
      void worker.terminate();
      if (m.key) resolve(Buffer.from(m.key));
      else reject(new KeystoreError(`scrypt failed: ${m.error}`));
    });
    worker.once("error", (e) => reject(new KeystoreError(`scrypt failed: ${e.message}`)));
  });
}

function mac(derived: Buffer, ciphertext: Buffer): Buffer {
  return Buffer.from(keccak_256(Buffer.concat([derived.subarray(16, 32), ciphertext])));
}

interface DecryptedKey {
  /** 0x + lowercase 40 hex. */
  address: Hex;
  privateKey: Hex;
}

/** Decrypt a keystore; a wrong password is a KeystoreError saying exactly that, and nothing about the key. */
export async function decryptKeystore(json: unknown, password: string): Promise<DecryptedKey> {
  const ks = parseKeystore(json);
  const derived = await deriveKey(password, ks.crypto);
  const ciphertext = unhex(ks.crypto.ciphertext);
  const expected = unhex(ks.crypto.mac);
  const actual = mac(derived, ciphertext);
  if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) {
    throw new KeystoreError(
      `wrong password for keystore${ks.address ? ` 0x${ks.address.replace(/^0x/, "")}` : ""}`,
    );
  }
  const decipher = createDecipheriv("aes-128-ctr", derived.subarray(0, 16), unhex(ks.crypto.cipherparams.iv));
  const key = Buffer.concat([decipher.update(ciphertext), decipher.final()]);
  if (key.length !== 32) throw new KeystoreError("keystore does not hold a 32-byte secp256k1 key");
  const privateKey = `0x${key.toString("hex")}` as Hex;
  let address: Hex;
  try {
    address = viemAccounts().privateKeyToAddress(privateKey).toLowerCase() as Hex;
  } catch {
    throw new KeystoreError("keystore holds an invalid secp256k1 key");
  }
  if (ks.address && `0x${ks.address.replace(/^0x/, "").toLowerCase()}` !== address) {
    throw new KeystoreError(
      `keystore claims address 0x${ks.address.replace(/^0x/, "")} but holds the key of ${address}`,
    );
  }
  return { address, privateKey };
}

export interface EncryptOptions {
  /** Scrypt work factors (default STANDARD_SCRYPT; tests pass a low n). */
  scrypt?: { n: number; r: number; p: number };
}

/** Encrypt a private key into a v3 keystore object (scrypt, aes-128-ctr, keccak-256 MAC, random salt/iv/uuid). */
export async function encryptKeystore(
  privateKey: Hex,
  password: string,
  opts: EncryptOptions = {},
): Promise<KeystoreV3> {
  if (!/^0x[0-9a-fA-F]{64}$/.test(privateKey))
    throw new KeystoreError("not a private key (expected 0x + 64 hex)");
  let address: string;
  try {
    address = viemAccounts().privateKeyToAddress(privateKey).toLowerCase().slice(2);
  } catch {
    throw new KeystoreError("not a valid secp256k1 private key");
  }
  const { n, r, p } = opts.scrypt ?? STANDARD_SCRYPT;
  const salt = randomBytes(32).toString("hex");
  const iv = randomBytes(16);
  const kdfparams = { dklen: 32, n, r, p, salt };
  const derived = await deriveKey(password, {
    cipher: "aes-128-ctr",
    cipherparams: { iv: "" },
    ciphertext: "",
    kdf: "scrypt",
    kdfparams,
    mac: "",
  });
  const cipher = createCipheriv("aes-128-ctr", derived.subarray(0, 16), iv);
  const ciphertext = Buffer.concat([cipher.update(unhex(privateKey)), cipher.final()]);
  return {
    address,
    crypto: {
      cipher: "aes-128-ctr",
      cipherparams: { iv: iv.toString("hex") },
      ciphertext: ciphertext.toString("hex"),
      kdf: "scrypt",
      kdfparams,
      mac: mac(derived, ciphertext).toString("hex"),
    },
    id: randomUUID(),
    version: 3,
  };
}

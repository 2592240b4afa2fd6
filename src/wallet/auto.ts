import { randomBytes } from "node:crypto";
import { generatePrivateKey, privateKeyToAddress } from "viem/accounts";
import { mergeEnvFile, readEnvFile } from "./env-file.ts";
import { type Env, envFilePath } from "./home.ts";
import { listWallets, normalizeAddress, saveKeystore } from "./keystore-store.ts";
import { type EncryptOptions, encryptKeystore, type Hex } from "./keystore-v3.ts";
import { ADDRESS_VAR, PASSWORD_VAR, passwordVarFor } from "./resolve-key.ts";

interface WalletAutoResult {
  /** Checksummed address. */
  address: string;
  /** The random keystore password (32 characters). The private key is never returned. */
  password: string;
  keystore: string;
  /** Set when the password was saved to the env file. */
  env_file?: string;
}

const AUTO_SCRYPT = { n: 16384, r: 8, p: 1 } as const;

/** 32 characters of URL-safe base64 from 24 random bytes (192 bits). */
function randomPassword(): string {
  return randomBytes(24).toString("base64url");
}

/** Encrypt a key into `~/.hl-agent/keystore/<address>.json`; returns the file path. */
export async function createKeystore(
  privateKey: Hex,
  password: string,
  opts: EncryptOptions & { env?: Env } = {},
): Promise<string> {
  return saveKeystore(await encryptKeystore(privateKey, password, opts), opts.env);
}

/**
 * Create a wallet with no questions asked: a fresh key, encrypted with a random password. With
 * `saveEnv`, the env file gets the password (generic and per-wallet) and the wallet as the selected
 * one — other lines are kept, and a previous wallet's password is kept under its own name.
 */
export async function walletAuto(
  opts: { saveEnv?: boolean; env?: Env } & EncryptOptions = {},
): Promise<WalletAutoResult> {
  const env = opts.env ?? process.env;
  const before = listWallets(env);
  const privateKey = generatePrivateKey();
  const password = randomPassword();
  // The password is 192 random bits, so the KDF's work factor adds no real protection here; a
  // lighter scrypt (n=2^14, still geth-readable) keeps the call well under the tool's latency budget.
  // Keystores with human-chosen passwords (wallet create/import) keep the standard cost.
  const scrypt = opts.scrypt ?? AUTO_SCRYPT;
  const keystore = await createKeystore(privateKey, password, { ...opts, scrypt, env });
  const checksummed = privateKeyToAddress(privateKey);
  const result: WalletAutoResult = { address: checksummed, password, keystore };
  if (!opts.saveEnv) return result;

  const path = envFilePath(env);
  const current = readEnvFile(path);
  const updates: Record<string, string> = {
    [PASSWORD_VAR]: password,
    [ADDRESS_VAR]: checksummed.toLowerCase(),
    [passwordVarFor(checksummed)]: password,
  };
  const previousOwner = current[ADDRESS_VAR] ?? (before.length === 1 ? before[0]!.address : undefined);
  if (current[PASSWORD_VAR] && previousOwner) {
    const ownVar = passwordVarFor(normalizeAddress(previousOwner));
    if (!current[ownVar]) updates[ownVar] = current[PASSWORD_VAR];
  }
  mergeEnvFile(path, updates);
  return { ...result, env_file: path };
}

import { UserError } from "../core/errors.ts";
import { readEnvFile } from "./env-file.ts";
import { type Env, envFilePath, keystoreDir } from "./home.ts";
import { listWallets, loadKeystore, normalizeAddress } from "./keystore-store.ts";
import { decryptKeystore, type Hex } from "./keystore-v3.ts";
import { viemAccounts } from "./viem-accounts.ts";

/** Env names: the generic password, a per-wallet password, and the wallet selector. */
export const PASSWORD_VAR = "HL_KEYSTORE_PASSWORD";
export const ADDRESS_VAR = "HL_KEYSTORE_ADDRESS";
export function passwordVarFor(address: string): string {
  return `${PASSWORD_VAR}_${normalizeAddress(address).slice(2).toUpperCase()}`;
}

/**
 * A signing key and where it came from. The key itself is a private field: it does not show in
 * JSON.stringify, console.log or object spreads — only through the explicit `privateKey` getter.
 */
class ResolvedKey {
  readonly #key: Hex;
  constructor(
    readonly address: Hex,
    readonly source: string,
    key: Hex,
  ) {
    this.#key = key;
  }
  get privateKey(): Hex {
    return this.#key;
  }
  toJSON() {
    return { address: this.address, source: this.source };
  }
  [Symbol.for("nodejs.util.inspect.custom")]() {
    return `ResolvedKey { address: '${this.address}', source: '${this.source}' }`;
  }
}

interface ResolveKeyOptions {
  /** Keystore to use: an address or a file path (the CLI's `--keystore`). */
  keystore?: string;
  /** Password for it (else the environment, else `~/.hl-agent/env`). */
  password?: string;
  env?: Env;
}

const KEY_SHAPE = /^(0x)?[0-9a-fA-F]{64}$/;

function keyFromEnv(raw: string): ResolvedKey {
  const trimmed = raw.trim();
  if (!KEY_SHAPE.test(trimmed))
    throw new UserError("HL_PRIVATE_KEY is not a private key (expected 0x followed by 64 hex digits)");
  const key = (trimmed.startsWith("0x") ? trimmed : `0x${trimmed}`).toLowerCase() as Hex;
  try {
    return new ResolvedKey(
      viemAccounts().privateKeyToAddress(key).toLowerCase() as Hex,
      "HL_PRIVATE_KEY",
      key,
    );
  } catch {
    throw new UserError("HL_PRIVATE_KEY is not a valid secp256k1 private key");
  }
}

/** Password for a keystore: explicit, then its own variable, then the generic one — process env before the env file. */
function passwordFor(
  address: Hex,
  explicit: string | undefined,
  env: Env,
  file: Record<string, string>,
): string | undefined {
  if (explicit !== undefined) return explicit;
  const own = passwordVarFor(address);
  return env[own] || file[own] || env[PASSWORD_VAR] || file[PASSWORD_VAR] || undefined;
}

async function unlock(
  selector: string,
  why: string,
  opts: ResolveKeyOptions,
  env: Env,
): Promise<ResolvedKey> {
  const { path, json } = loadKeystore(selector, env);
  const file = readEnvFile(envFilePath(env));
  const claimed = (json as { address?: unknown }).address;
  const address = typeof claimed === "string" ? normalizeAddress(claimed) : normalizeAddress(selector);
  const password = passwordFor(address, opts.password, env, file);
  if (password === undefined) {
    throw new UserError(
      `keystore ${address} needs a password: set ${PASSWORD_VAR} (or ${passwordVarFor(address)}), or put it in ${envFilePath(env)}`,
    );
  }
  const { privateKey, address: actual } = await decryptKeystore(json, password);
  return new ResolvedKey(actual, `keystore ${path} (${why})`, privateKey);
}

/**
 * The key that signs for trading. Order:
 * 1. an explicit keystore (`opts.keystore`, or `HL_KEYSTORE_ADDRESS` in the process environment);
 * 2. `HL_PRIVATE_KEY`;
 * 3. the keystores in `~/.hl-agent/keystore`: the one the env file names (`HL_KEYSTORE_ADDRESS`, written
 *    by `wallet auto`), else the only one. Several and none named → an error listing them, never a guess.
 * Returns null when nothing at all is configured (no keystore, no key): callers decide (paper wallet, read-only).
 */
export async function resolvePrivateKeyIfAny(opts: ResolveKeyOptions = {}): Promise<ResolvedKey | null> {
  const env = opts.env ?? process.env;
  if (opts.keystore) return unlock(opts.keystore, "--keystore", opts, env);
  if (env[ADDRESS_VAR]) return unlock(env[ADDRESS_VAR], ADDRESS_VAR, opts, env);
  if (env.HL_PRIVATE_KEY) return keyFromEnv(env.HL_PRIVATE_KEY);
  const wallets = listWallets(env);
  if (wallets.length === 0) return null;
  const named = readEnvFile(envFilePath(env))[ADDRESS_VAR];
  if (named) return unlock(named, `${ADDRESS_VAR} in ${envFilePath(env)}`, opts, env);
  if (wallets.length === 1) return unlock(wallets[0]!.path, "the only keystore", opts, env);
  throw new UserError(
    `${wallets.length} keystores in ${keystoreDir(env)} (${wallets.map((w) => w.address).join(", ")}) and none chosen: pass --keystore <address> or set ${ADDRESS_VAR}`,
  );
}

/** Like resolvePrivateKeyIfAny, but "nothing configured" is an error telling the user what to do. */
export async function resolvePrivateKey(opts: ResolveKeyOptions = {}): Promise<ResolvedKey> {
  const key = await resolvePrivateKeyIfAny(opts);
  if (key) return key;
  throw new UserError(
    "No private key available: set HL_PRIVATE_KEY, or create an encrypted keystore with 'hl wallet auto' or 'hl wallet import'",
  );
}

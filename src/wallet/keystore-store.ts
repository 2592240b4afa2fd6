import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../store/atomic.ts";
import { agentHome, type Env, keystoreDir } from "./home.ts";
import { type Hex, KeystoreError, type KeystoreV3, parseKeystore } from "./keystore-v3.ts";

const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** What `wallet_list` prints when the directory holds no keystore. */
export const NO_KEYSTORES_TEXT = "No keystores found.";

interface WalletFile {
  /** 0x + 40 lowercase hex. */
  address: Hex;
  path: string;
}

/** Create (or tighten) a directory that holds secrets: mode 0700. */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  chmodSync(dir, PRIVATE_DIR_MODE);
}

/** `0xAbC…` / `abc…` → `0xabc…`; anything that is not 20 bytes of hex is a clear error. */
export function normalizeAddress(address: string): Hex {
  const bare = address.trim().toLowerCase().replace(/^0x/, "");
  if (!/^[0-9a-f]{40}$/.test(bare))
    throw new KeystoreError(`"${address}" is not an address (0x + 40 hex digits)`);
  return `0x${bare}`;
}

/** Keystore path for an address: `<home>/keystore/<40 lowercase hex>.json` (the layout eth-keyfile tools use). */
function keystorePath(address: string, env: Env = process.env): string {
  return join(keystoreDir(env), `${normalizeAddress(address).slice(2)}.json`);
}

/** Write a keystore file (0600, in a 0700 directory); an existing keystore for the address is never replaced. */
export function saveKeystore(keystore: KeystoreV3, env: Env = process.env): string {
  if (!keystore.address) throw new KeystoreError("keystore has no address field");
  ensurePrivateDir(agentHome(env));
  ensurePrivateDir(keystoreDir(env));
  const path = keystorePath(keystore.address, env);
  if (existsSync(path))
    throw new KeystoreError(`a keystore for 0x${keystore.address} already exists: ${path}`);
  writeFileAtomic(path, `${JSON.stringify(keystore)}\n`, PRIVATE_FILE_MODE);
  chmodSync(path, PRIVATE_FILE_MODE);
  return path;
}

/** Keystores in the directory, sorted by address; files that are not keystores are passed over. Read-only. */
export function listWallets(env: Env = process.env): WalletFile[] {
  const dir = keystoreDir(env);
  if (!existsSync(dir)) return [];
  const out: WalletFile[] = [];
  for (const name of readdirSync(dir).sort()) {
    if (!name.endsWith(".json")) continue;
    const stem = name.slice(0, -5).toLowerCase().replace(/^0x/, "");
    const path = join(dir, name);
    if (/^[0-9a-f]{40}$/.test(stem)) {
      out.push({ address: `0x${stem}`, path });
      continue;
    }
    try {
      const ks = parseKeystore(JSON.parse(readFileSync(path, "utf8")));
      if (ks.address) out.push({ address: normalizeAddress(ks.address), path });
    } catch {
      // not a keystore: ignore
    }
  }
  return out.sort((a, b) => a.address.localeCompare(b.address));
}

/** The keystore file of an address, or of an explicit path. */
export function loadKeystore(addressOrPath: string, env: Env = process.env): { path: string; json: unknown } {
  const isAddress = /^(0x)?[0-9a-fA-F]{40}$/.test(addressOrPath.trim());
  const path = isAddress
    ? (listWallets(env).find((w) => w.address === normalizeAddress(addressOrPath))?.path ??
      keystorePath(addressOrPath, env))
    : addressOrPath;
  if (!existsSync(path)) {
    throw new KeystoreError(
      isAddress
        ? `no keystore for ${normalizeAddress(addressOrPath)} in ${keystoreDir(env)}`
        : `keystore file not found: ${path}`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, "utf8"));
  } catch {
    throw new KeystoreError(`keystore file ${path} is not valid JSON`);
  }
  return { path, json };
}

import { join } from "node:path";
import type { AbstractWallet } from "@nktkas/hyperliquid/signing";
import { getWalletAddress } from "@nktkas/hyperliquid/signing";
import { z } from "zod";
import { dataDir } from "../config/env.ts";
import { UserError } from "../core/errors.ts";
import { createFileExclusive, readJson } from "../store/atomic.ts";
import { resolvePrivateKeyIfAny } from "../wallet/resolve-key.ts";
import { viemAccounts } from "../wallet/viem-accounts.ts";
import type { Address, Hex } from "./config.ts";

/** Anything the SDK can sign with: a viem account (local or JSON-RPC) or an ethers v5/v6 signer. */
export type Signer = AbstractWallet;

export interface ResolvedSigner {
  wallet: Signer;
  address: Address;
  /** Where the key came from, for messages ("HL_PRIVATE_KEY", "paper wallet …"); never the key itself. */
  source: string;
}

const PRIVATE_KEY = /^(0x)?[0-9a-fA-F]{64}$/;

/** Build a viem account from a hex private key; the message of a bad key never contains the key. */
function accountFromPrivateKey(key: string, source: string): ResolvedSigner {
  const trimmed = key.trim();
  if (!PRIVATE_KEY.test(trimmed)) {
    throw new UserError(`${source} is not a private key (expected 0x followed by 64 hex digits)`);
  }
  const hex = (trimmed.startsWith("0x") ? trimmed : `0x${trimmed}`) as Hex;
  try {
    const account = viemAccounts().privateKeyToAccount(hex);
    return { wallet: account, address: account.address, source };
  } catch {
    throw new UserError(`${source} is not a valid secp256k1 private key`);
  }
}

/**
 * The one place that decides which wallet signs. Order: an explicit signer, an explicit private key,
 * then the wallet module's resolution (explicit keystore, `HL_PRIVATE_KEY`, the selected or only
 * keystore — see src/wallet/resolve-key.ts). With `keystores: false` (the paper network) keystores are
 * not consulted, so a paper run never asks for a real wallet's password.
 * Returns undefined when no wallet is configured (read-only client).
 */
export async function resolveSigner(
  opts: { signer?: Signer; privateKey?: string; keystore?: string; keystores?: boolean } = {},
  env: Record<string, string | undefined> = process.env,
): Promise<ResolvedSigner | undefined> {
  if (opts.signer) {
    const address = (await getWalletAddress(opts.signer)) as Address;
    return { wallet: opts.signer, address, source: "signer" };
  }
  if (opts.privateKey) return accountFromPrivateKey(opts.privateKey, "private key");
  if (opts.keystores === false && !opts.keystore) {
    const fromEnv = env.HL_PRIVATE_KEY;
    return fromEnv ? accountFromPrivateKey(fromEnv, "HL_PRIVATE_KEY") : undefined;
  }
  const resolved = await resolvePrivateKeyIfAny({ keystore: opts.keystore, env });
  return resolved ? accountFromPrivateKey(resolved.privateKey, resolved.source) : undefined;
}

const paperKeySchema = z.object({ privateKey: z.string().regex(PRIVATE_KEY), address: z.string() });

export interface PaperWallet extends ResolvedSigner {
  path: string;
  /** True when this call generated the key (first paper run). */
  created: boolean;
}

/** `$DATA_DIR/paper/key.json`: the local paper account's key, so repeat runs trade the same account. */
export function paperKeyPath(env: Record<string, string | undefined> = process.env): string {
  return join(dataDir(env), "paper", "key.json");
}

/**
 * The paper wallet: loaded from `$DATA_DIR/paper/key.json`, or generated and stored there (mode 0600)
 * on first use. Only ever used on the paper network; it holds no real funds.
 */
export function loadOrCreatePaperWallet(env: Record<string, string | undefined> = process.env): PaperWallet {
  const path = paperKeyPath(env);
  const existing = loadPaperWallet(path);
  if (existing) return existing;
  const privateKey = viemAccounts().generatePrivateKey();
  const account = viemAccounts().privateKeyToAccount(privateKey);
  const record = { privateKey, address: account.address, note: "paper-network wallet; no real funds" };
  // Two first runs at once (e.g. `hl up` starting its services) must end up on one account: only one
  // creation wins, the other adopts the winner's key.
  if (!createFileExclusive(path, `${JSON.stringify(record, null, 2)}\n`, 0o600))
    return loadPaperWallet(path)!;
  return { wallet: account, address: account.address, source: `paper wallet ${path}`, path, created: true };
}

function loadPaperWallet(path: string): PaperWallet | undefined {
  const read = readJson<unknown>(path);
  if (read.kind === "corrupt")
    throw new UserError(`paper wallet file ${path} is corrupt (${read.error}); move it aside`);
  if (read.kind === "ok") {
    const parsed = paperKeySchema.safeParse(read.value);
    if (!parsed.success)
      throw new UserError(`paper wallet file ${path} has an unexpected shape; move it aside`);
    return { ...accountFromPrivateKey(parsed.data.privateKey, `paper wallet ${path}`), path, created: false };
  }
  return undefined;
}

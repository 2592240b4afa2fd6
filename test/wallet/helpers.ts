import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Env } from "../../src/wallet/home.ts";

/** Low scrypt cost for tests (the default n=2^18 is for real wallets). */
export const FAST = { scrypt: { n: 1024, r: 8, p: 1 } };

/** An isolated environment: its own HL_AGENT_HOME and DATA_DIR, no key variables inherited. */
export function tempEnv(extra: Env = {}): Env {
  const root = mkdtempSync(join(tmpdir(), "hl-wallet-"));
  return { HL_AGENT_HOME: join(root, "home"), DATA_DIR: join(root, "data"), HOME: root, ...extra };
}

export const KEY_A = "0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318" as const;
export const ADDR_A = "0x2c7536e3605d9c16a7a3d7b1898e529396a65c23";
export const KEY_B = "0x7a28b5ba57c53603b0b07b56bba752f7784bf506fa95edc395f5cf6c7514fe9d" as const;
export const ADDR_B = "0x008aeeda4d805471df9b2a5b0f38a0c3bcba786b";

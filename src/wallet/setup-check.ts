import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { privateKeyToAddress } from "viem/accounts";
import type { Network } from "../config/defaults.ts";
import { apiUrl, dataDir, resolveNetwork } from "../config/env.ts";
import { builderConfig, feePercentString } from "./builder.ts";
import { readEnvFile } from "./env-file.ts";
import { type Env, envFilePath } from "./home.ts";
import { listWallets, normalizeAddress } from "./keystore-store.ts";
import type { Hex } from "./keystore-v3.ts";
import { ADDRESS_VAR, PASSWORD_VAR, passwordVarFor } from "./resolve-key.ts";

export interface SetupCheckResult {
  ok: string[];
  issues: string[];
  passed: boolean;
}

/** Reads the approved builder fee (tenths of a bp) for a user; throws when the exchange cannot be reached. */
type MaxBuilderFeeQuery = (q: { network: Network; user: Hex; builder: Hex }) => Promise<number>;

interface SetupCheckOptions {
  env?: Env;
  /** `--network` flag (else HL_NETWORK, else paper). */
  network?: string;
  /** How to ask the exchange for the builder approval (default: an unsigned HlClient, 5 s timeout). */
  queryMaxBuilderFee?: MaxBuilderFeeQuery;
}

const SDK = "@nktkas/hyperliquid";
const LLM_KEYS = ["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"] as const;

/** Ask the exchange of `network` (with the caller's env, so HL_API_URL applies) through an unsigned client. */
async function exchangeQuery(q: Parameters<MaxBuilderFeeQuery>[0], env: Env): Promise<number> {
  const { HlClient } = await import("../exchange/index.ts");
  const client = await HlClient.create({
    network: q.network,
    env,
    paperWallet: false,
    timeoutMs: 5_000,
    retry: { attempts: 1 },
  });
  try {
    return await client.maxBuilderFee({ user: q.user, builder: q.builder });
  } finally {
    await client.close();
  }
}

/** Version of the installed SDK (found by resolving its entry point, then its package.json), or null. */
function sdkVersion(): string | null {
  try {
    let dir = dirname(fileURLToPath(import.meta.resolve(SDK)));
    for (let i = 0; i < 5; i++, dir = dirname(dir)) {
      const manifest = join(dir, "package.json");
      if (!existsSync(manifest)) continue;
      const pkg = JSON.parse(readFileSync(manifest, "utf8")) as { name?: string; version?: string };
      if (pkg.name === SDK) return pkg.version ?? "unknown version";
    }
    return "unknown version";
  } catch {
    return null;
  }
}

interface KeyFinding {
  /** Address that would sign, when it can be known without decrypting anything. */
  address: Hex | null;
  ok?: string;
  issue?: string;
}

/** Where the trading key would come from — judged without decrypting, so no password is needed to check. */
function keySource(env: Env, network: Network): KeyFinding {
  const file = readEnvFile(envFilePath(env));
  const passwordSource = (address: Hex): string | null => {
    const own = passwordVarFor(address);
    if (env[own] || env[PASSWORD_VAR]) return "from the environment";
    if (file[own] || file[PASSWORD_VAR]) return `from ${envFilePath(env)}`;
    return null;
  };
  const keystoreFinding = (address: Hex, why: string): KeyFinding => {
    const wallets = listWallets(env);
    if (!wallets.some((w) => w.address === address)) {
      return {
        address: null,
        issue: `${why} names ${address}, but no keystore for it exists: run 'hl wallet list'`,
      };
    }
    const pw = passwordSource(address);
    return pw
      ? { address, ok: `Keystore ${address} (${why}), password ${pw}` }
      : {
          address,
          issue: `Keystore ${address} (${why}) has no password: set ${PASSWORD_VAR} or save it in ${envFilePath(env)}`,
        };
  };

  try {
    if (env[ADDRESS_VAR]) return keystoreFinding(normalizeAddress(env[ADDRESS_VAR]), `${ADDRESS_VAR}`);
    if (env.HL_PRIVATE_KEY) {
      const raw = env.HL_PRIVATE_KEY.trim();
      const key = (raw.startsWith("0x") ? raw : `0x${raw}`) as Hex;
      try {
        const address = privateKeyToAddress(key).toLowerCase() as Hex;
        return { address, ok: `HL_PRIVATE_KEY set (${address})` };
      } catch {
        return { address: null, issue: "HL_PRIVATE_KEY is set but is not a valid private key (0x + 64 hex)" };
      }
    }
    const wallets = listWallets(env);
    if (wallets.length === 0) {
      return network === "paper"
        ? { address: null, ok: "No private key configured: paper trading signs with the local paper wallet" }
        : { address: null, issue: "No private key: set HL_PRIVATE_KEY or run 'hl wallet auto'" };
    }
    if (file[ADDRESS_VAR])
      return keystoreFinding(normalizeAddress(file[ADDRESS_VAR]), `selected in ${envFilePath(env)}`);
    if (wallets.length === 1) return keystoreFinding(wallets[0]!.address, "the only keystore");
    return {
      address: null,
      issue: `${wallets.length} keystores found and none selected: set ${ADDRESS_VAR} or pass --keystore <address>`,
    };
  } catch (err) {
    return { address: null, issue: `Key: ${(err as Error).message}` };
  }
}

function dataDirWritable(env: Env): { ok?: string; issue?: string } {
  const dir = dataDir(env);
  try {
    mkdirSync(dir, { recursive: true });
    const probe = join(dir, `.setup-check-${process.pid}`);
    writeFileSync(probe, "");
    rmSync(probe);
    return { ok: `Data dir: ${dir} writable` };
  } catch (err) {
    return {
      issue: `Data dir: ${dir} is not writable (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
    };
  }
}

/** Validate the environment: SDK, key source, network, builder fee (and its approval on the exchange), LLM key, data dir. */
export async function setupCheck(opts: SetupCheckOptions = {}): Promise<SetupCheckResult> {
  const env = opts.env ?? process.env;
  const ok: string[] = [];
  const issues: string[] = [];
  const add = (r: { ok?: string; issue?: string }) => {
    if (r.ok) ok.push(r.ok);
    if (r.issue) issues.push(r.issue);
  };

  const version = sdkVersion();
  add(
    version
      ? { ok: `Hyperliquid SDK ${SDK} ${version} installed` }
      : { issue: `Hyperliquid SDK ${SDK} not installed (run npm ci)` },
  );

  let network: Network | null = null;
  try {
    network = resolveNetwork(opts.network, env);
    ok.push(`Network: ${network} (${apiUrl(network, env)})`);
  } catch (err) {
    issues.push(`Network: ${(err as Error).message}`);
  }

  const key = keySource(env, network ?? "paper");
  add(key);

  try {
    const cfg = builderConfig(env);
    if (!cfg.enabled) {
      ok.push("Builder fee: not configured (optional)");
    } else {
      const builder = cfg.address as Hex;
      ok.push(
        `Builder fee: ${cfg.feeTenthsBps / 10} bps (${feePercentString(cfg.feeTenthsBps)}) -> ${builder.slice(0, 10)}...`,
      );
      if (network && key.address) {
        try {
          const query = { network, user: key.address, builder };
          const approved = opts.queryMaxBuilderFee
            ? await opts.queryMaxBuilderFee(query)
            : await exchangeQuery(query, env);
          if (approved >= cfg.feeTenthsBps)
            ok.push(`Builder fee approved on ${network} (up to ${feePercentString(approved)})`);
          else
            issues.push(
              `Builder fee not approved on ${network} for ${key.address} (approved ${feePercentString(approved)}, needs ${feePercentString(cfg.feeTenthsBps)}): run 'hl builder approve'`,
            );
        } catch (err) {
          const why = (err as Error).message.split("\n")[0];
          if (network === "paper")
            ok.push(`Builder fee approval: not checked (sim world not reachable: ${why})`);
          else issues.push(`Builder fee approval: could not query ${network} (${why})`);
        }
      } else if (network) {
        ok.push("Builder fee approval: not checked (no wallet address known)");
      }
    }
  } catch (err) {
    issues.push(`Builder fee: ${(err as Error).message}`);
  }

  const llm = LLM_KEYS.find((k) => env[k]);
  ok.push(
    llm ? `LLM API key found (${llm})` : "LLM API key: not set (only needed for the llm_agent strategy)",
  );

  add(dataDirWritable(env));
  return { ok, issues, passed: issues.length === 0 };
}

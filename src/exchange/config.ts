import { z } from "zod";
import type { Network } from "../config/defaults.ts";
import { apiUrl as networkApiUrl } from "../config/env.ts";
import { UserError } from "../core/errors.ts";

export type Address = `0x${string}`;
export type Hex = `0x${string}`;

/** A builder code attached to every order of a client: `feeTenthsBps` 10 = 1 bp = 0.01 %. */
export interface BuilderFee {
  address: Address;
  /** Tenths of a basis point; Hyperliquid caps perps at 100 (0.1 %). */
  feeTenthsBps: number;
}

const builderFeeSchema = z.object({
  address: z.string().regex(/^0x[0-9a-fA-F]{40}$/, "builder address must be 0x + 40 hex digits"),
  feeTenthsBps: z.number().int().min(0).max(100),
});

/** Endpoints and signing flavour of one client, resolved from its options and the environment. */
interface ResolvedEndpoint {
  network: Network;
  /** Base URL; the SDK POSTs to `<apiUrl>/info` and `<apiUrl>/exchange`. */
  apiUrl: string;
  /** WebSocket URL (`ws[s]://host/ws`). */
  wsUrl: string;
  /**
   * Signing flavour: L1 `source` "b" and `hyperliquidChain` "Testnet" when true. Paper signs as
   * testnet, so a signature made against the sim world can never be replayed on mainnet; the sim
   * world accepts both flavours.
   */
  isTestnet: boolean;
}

/** Testnet and paper sign with the testnet flavour; only mainnet signs as mainnet. */
function signsAsTestnet(network: Network): boolean {
  return network !== "mainnet";
}

/** The WebSocket endpoint that belongs to an HTTP API base URL (Hyperliquid serves it at `/ws`). */
function wsUrlFor(httpUrl: string): string {
  const url = new URL(httpUrl);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/ws`;
  return url.toString();
}

export function resolveEndpoint(
  network: Network,
  overrides: { apiUrl?: string; wsUrl?: string } = {},
  env: Record<string, string | undefined> = process.env,
): ResolvedEndpoint {
  const base = (overrides.apiUrl ?? networkApiUrl(network, env)).replace(/\/+$/, "");
  try {
    new URL(base);
  } catch {
    throw new UserError(`invalid exchange API URL "${base}"`);
  }
  return {
    network,
    apiUrl: base,
    wsUrl: overrides.wsUrl ?? wsUrlFor(base),
    isTestnet: signsAsTestnet(network),
  };
}

export function parseBuilderFee(value: unknown): BuilderFee {
  const parsed = builderFeeSchema.safeParse(value);
  if (!parsed.success) {
    throw new UserError(`invalid builder fee: ${parsed.error.issues.map((i) => i.message).join("; ")}`);
  }
  return { address: parsed.data.address as Address, feeTenthsBps: parsed.data.feeTenthsBps };
}

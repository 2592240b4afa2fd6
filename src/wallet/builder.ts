import { D, wire } from "../core/decimal.ts";
import { UserError } from "../core/errors.ts";
import { DEFAULT_BUILDER_ADDRESS } from "./builder-codes.ts";
import type { Env } from "./home.ts";
import type { Hex } from "./keystore-v3.ts";

export { DEFAULT_BUILDER_ADDRESS };

/** 100 tenths of a basis point = 10 bps = 0.1 %. */
const DEFAULT_BUILDER_FEE_TENTHS_BPS = 100;
/** Hyperliquid's cap for perps: 0.1 % (spot allows 1 %, which this agent does not trade). */
const MAX_PERP_BUILDER_FEE_TENTHS_BPS = 100;

interface BuilderConfig {
  enabled: boolean;
  /** Empty when disabled by `BUILDER_ADDRESS=`. */
  address: Hex | "";
  feeTenthsBps: number;
}

/** The MCP `builder_status` result. */
interface BuilderStatus {
  enabled: boolean;
  builder_address: string;
  fee_bps: number;
  fee_rate_tenths_bps: number;
  max_fee_rate_str: string;
}

/** Builder settings from `BUILDER_ADDRESS` and `BUILDER_FEE_TENTHS_BPS`; a bad value is a clear error. */
export function builderConfig(env: Env = process.env): BuilderConfig {
  const address = (env.BUILDER_ADDRESS ?? DEFAULT_BUILDER_ADDRESS).trim();
  if (address !== "" && !/^0x[0-9a-fA-F]{40}$/.test(address)) {
    throw new UserError(
      `BUILDER_ADDRESS must be 0x followed by 40 hex digits (or empty to disable), got "${address}"`,
    );
  }
  const rawFee = (env.BUILDER_FEE_TENTHS_BPS ?? String(DEFAULT_BUILDER_FEE_TENTHS_BPS)).trim();
  const fee = /^\d+$/.test(rawFee) ? Number(rawFee) : Number.NaN;
  if (!Number.isInteger(fee) || fee > MAX_PERP_BUILDER_FEE_TENTHS_BPS) {
    throw new UserError(
      `BUILDER_FEE_TENTHS_BPS must be a whole number from 0 to ${MAX_PERP_BUILDER_FEE_TENTHS_BPS} (the 0.1% perp cap), got "${rawFee}"`,
    );
  }
  return { enabled: address !== "" && fee > 0, address: address as Hex | "", feeTenthsBps: fee };
}

/** Tenths of a bp → percent string as approveBuilderFee signs it: 100 → "0.1%", 15 → "0.015%". */
export function feePercentString(feeTenthsBps: number): string {
  return `${wire(new D(feeTenthsBps).div(1000))}%`;
}

export function builderStatus(env: Env = process.env): BuilderStatus {
  const cfg = builderConfig(env);
  return {
    enabled: cfg.enabled,
    builder_address: cfg.address,
    fee_bps: new D(cfg.feeTenthsBps).div(10).toNumber(),
    fee_rate_tenths_bps: cfg.feeTenthsBps,
    max_fee_rate_str: feePercentString(cfg.feeTenthsBps),
  };
}

/** The builder argument for `HlClient.create({ builder })`, or undefined when disabled. */
export function builderFeeForClient(
  env: Env = process.env,
): { address: Hex; feeTenthsBps: number } | undefined {
  const cfg = builderConfig(env);
  return cfg.enabled ? { address: cfg.address as Hex, feeTenthsBps: cfg.feeTenthsBps } : undefined;
}

/** What approving needs from the exchange client (HlClient satisfies it). */
export interface BuilderApprovalClient {
  readonly address: string | undefined;
  maxBuilderFee(opts: { builder: Hex; user?: Hex; fresh?: boolean }): Promise<number>;
  approveBuilderFee(req: { builder: Hex; maxFeeTenthsBps: number }): Promise<void>;
}

interface ApprovalOutcome {
  /** True when an approval was signed now; false when the existing one already covered the fee. */
  signed: boolean;
  /** The approval on the exchange afterwards, tenths of a bp. */
  approvedTenthsBps: number;
}

/**
 * Approve the configured builder fee for the client's account (user-signed approveBuilderFee; must be
 * the main wallet, not an API wallet). Skips signing when the exchange already holds an approval ≥ the fee.
 */
export async function approveBuilderFee(
  client: BuilderApprovalClient,
  cfg: BuilderConfig,
): Promise<ApprovalOutcome> {
  if (!cfg.enabled || cfg.address === "") {
    throw new UserError("Builder fee not configured. Set BUILDER_ADDRESS and BUILDER_FEE_TENTHS_BPS.");
  }
  if (!client.address) throw new UserError("no wallet configured to sign the approval");
  const builder = cfg.address;
  const before = await client.maxBuilderFee({ builder });
  if (before >= cfg.feeTenthsBps) return { signed: false, approvedTenthsBps: before };
  await client.approveBuilderFee({ builder, maxFeeTenthsBps: cfg.feeTenthsBps });
  const after = await client.maxBuilderFee({ builder, fresh: true });
  if (after < cfg.feeTenthsBps) {
    throw new UserError(
      `the exchange accepted the approval but reports ${after} tenths of a bp for ${builder}`,
    );
  }
  return { signed: true, approvedTenthsBps: after };
}

/** What attaching the builder needs from the exchange client (HlClient satisfies it). */
interface BuilderAttachClient {
  readonly address: string | undefined;
  maxBuilderFee(opts: { builder: Hex; user?: Hex }): Promise<number>;
  useBuilder(builder: { address: Hex; feeTenthsBps: number } | undefined): void;
}

/**
 * Attach the configured builder fee to a trading client when the account's approval covers it.
 * Returns a note for the operator when it is configured but not (fully) approved, or unknown.
 */
export async function attachApprovedBuilder(
  client: BuilderAttachClient,
  env: Env = process.env,
): Promise<string | undefined> {
  const fee = builderFeeForClient(env);
  if (!fee || !client.address) return undefined;
  let approved: number;
  try {
    approved = await client.maxBuilderFee({ builder: fee.address });
  } catch (err) {
    return `Builder fee not attached: could not read the approval (${(err as Error).message}).`;
  }
  if (approved >= fee.feeTenthsBps) {
    client.useBuilder(fee);
    return undefined;
  }
  return `Builder fee ${fee.feeTenthsBps / 10} bps to ${fee.address} is not approved by ${client.address}: orders go without it. Run 'hl builder approve' to approve it.`;
}

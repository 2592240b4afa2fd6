import {
  ApproveAgentTypes,
  ApproveBuilderFeeTypes,
  CDepositTypes,
  ConvertToMultiSigUserTypes,
  CWithdrawTypes,
  LinkStakingUserTypes,
  SendAssetTypes,
  SendToEvmWithDataTypes,
  SpotSendTypes,
  TokenDelegateTypes,
  UsdClassTransferTypes,
  UsdSendTypes,
  UserDexAbstractionTypes,
  UserPortfolioMarginTypes,
  UserSetAbstractionTypes,
  Withdraw3Types,
} from "@nktkas/hyperliquid/api/exchange";
import { createL1ActionHash } from "@nktkas/hyperliquid/signing";
import { type Hex, recoverTypedDataAddress } from "viem";
import type { Address } from "../venue.ts";

/** Which signing flavour the sim accepts: Hyperliquid's mainnet ("a" / "Mainnet") or testnet ("b" / "Testnet"). */
export type SigningChain = "Mainnet" | "Testnet";

export interface WireSignature {
  r: string;
  s: string;
  v: number;
}

type TypeMap = Record<string, { name: string; type: string }[]>;

/**
 * EIP-712 type maps of every user-signed action (the SDK's own maps), those the sim does not model
 * included: their signer is recovered as the exchange recovers it, so they are refused as not
 * modelled rather than as coming from an unknown wallet.
 */
const USER_SIGNED_TYPES: Record<string, TypeMap> = {
  approveAgent: ApproveAgentTypes,
  approveBuilderFee: ApproveBuilderFeeTypes,
  usdSend: UsdSendTypes,
  withdraw3: Withdraw3Types,
  spotSend: SpotSendTypes,
  usdClassTransfer: UsdClassTransferTypes,
  sendAsset: SendAssetTypes,
  cDeposit: CDepositTypes,
  cWithdraw: CWithdrawTypes,
  tokenDelegate: TokenDelegateTypes,
  convertToMultiSigUser: ConvertToMultiSigUserTypes,
  linkStakingUser: LinkStakingUserTypes,
  sendToEvmWithData: SendToEvmWithDataTypes,
  userDexAbstraction: UserDexAbstractionTypes,
  userPortfolioMargin: UserPortfolioMarginTypes,
  userSetAbstraction: UserSetAbstractionTypes,
};

const ZERO_ADDRESS = "0x0000000000000000000000000000000000000000" as const;

/** Actions that move funds or grant approvals: only the account's own EIP-712 signature may carry them. */
export function isUserSignedType(type: unknown): boolean {
  return typeof type === "string" && Object.hasOwn(USER_SIGNED_TYPES, type);
}

export function isUserSignedAction(action: Record<string, unknown>): boolean {
  return isUserSignedType(action.type) && "signatureChainId" in action;
}

/** A 65-byte hex signature from the wire's {r, s, v} (r and s may have lost leading zeros). */
function toHexSignature(sig: WireSignature): Hex {
  const part = (h: string) => h.replace(/^0x/i, "").padStart(64, "0");
  return `0x${part(sig.r)}${part(sig.s)}${sig.v.toString(16).padStart(2, "0")}`;
}

/**
 * The address that signed an L1 action under the given chain flavour: the action is hashed exactly
 * as received (key order matters), then the phantom agent is recovered as the exchange does.
 */
export async function recoverL1Signer(args: {
  action: Record<string, unknown>;
  nonce: number;
  signature: WireSignature;
  vaultAddress?: Address;
  expiresAfter?: number;
  chain: SigningChain;
}): Promise<Address> {
  const connectionId = createL1ActionHash({
    action: args.action,
    nonce: args.nonce,
    vaultAddress: args.vaultAddress,
    expiresAfter: args.expiresAfter,
  });
  const recovered = await recoverTypedDataAddress({
    domain: { name: "Exchange", version: "1", chainId: 1337, verifyingContract: ZERO_ADDRESS },
    types: {
      Agent: [
        { name: "source", type: "string" },
        { name: "connectionId", type: "bytes32" },
      ],
    },
    primaryType: "Agent",
    message: { source: args.chain === "Mainnet" ? "a" : "b", connectionId },
    signature: toHexSignature(args.signature),
  });
  return recovered.toLowerCase() as Address;
}

/** The address that signed a user-signed action (EIP-712 over the action itself). */
export async function recoverUserSigner(
  action: Record<string, unknown>,
  signature: WireSignature,
): Promise<Address> {
  const types = USER_SIGNED_TYPES[action.type as string];
  if (!types) throw new Error(`unsupported user-signed action ${String(action.type)}`);
  const primaryType = Object.keys(types)[0]!;
  const chainId = Number.parseInt(String(action.signatureChainId), 16);
  if (!Number.isFinite(chainId)) throw new Error("invalid signatureChainId");
  // The exchange signs an absent agent name as the empty string.
  const message = action.type === "approveAgent" && !action.agentName ? { ...action, agentName: "" } : action;
  const recovered = await recoverTypedDataAddress({
    domain: { name: "HyperliquidSignTransaction", version: "1", chainId, verifyingContract: ZERO_ADDRESS },
    types,
    primaryType,
    message,
    signature: toHexSignature(signature),
  });
  return recovered.toLowerCase() as Address;
}

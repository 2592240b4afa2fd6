import type { Address } from "../venue.ts";

/** Nunchi's testnet USDyP faucet path, served by the sim world so the claim is tested end to end. */
export const USDYP_CLAIM_PATH = "/api/v1/yex/usdyp-claim";
/** What one claim credits on the sim world. */
const SIM_USDYP_CLAIM_AMOUNT = "1000";

interface UsdypClaimDeps {
  /** Has the exchange seen this wallet (the sim's stand-in for "connected on the testnet app")? */
  isKnown(user: Address): boolean;
  credit(user: Address, amount: string): void;
}

/**
 * One claim: `x-network: testnet`, body `{"userAddress"}`; a wallet the exchange has never seen is
 * refused as not connected yet, and each wallet claims once.
 */
export class UsdypFaucet {
  private readonly claimed = new Set<string>();

  constructor(private readonly deps: UsdypClaimDeps) {}

  claim(network: string | undefined, body: unknown): { status: number; body: Record<string, unknown> } {
    if (network !== "testnet") return { status: 400, body: { error: "x-network header must be testnet" } };
    const raw =
      typeof body === "object" && body !== null ? (body as { userAddress?: unknown }).userAddress : undefined;
    if (typeof raw !== "string" || !/^0x[0-9a-fA-F]{40}$/.test(raw))
      return { status: 400, body: { error: "userAddress must be 0x followed by 40 hex digits" } };
    const user = raw.toLowerCase() as Address;
    if (!this.deps.isKnown(user))
      return { status: 404, body: { error: "User not found: connect this wallet on the testnet app first" } };
    if (this.claimed.has(user))
      return { status: 409, body: { error: "USDyP already claimed for this wallet" } };
    this.deps.credit(user, SIM_USDYP_CLAIM_AMOUNT);
    this.claimed.add(user);
    return { status: 200, body: { success: true, userAddress: user, amount: SIM_USDYP_CLAIM_AMOUNT } };
  }
}

import { z } from "zod";
import type { Address } from "../venue.ts";
import type { AddressBudget } from "./address-budget.ts";
import type { NonceBook } from "./nonce-book.ts";
import {
  isUserSignedAction,
  isUserSignedType,
  recoverL1Signer,
  recoverUserSigner,
  type SigningChain,
  type WireSignature,
} from "./recover-signer.ts";

/** Shape of a POST /exchange body; the action itself is kept exactly as received for hashing. */
const exchangeRequestSchema = z.object({
  action: z.looseObject({ type: z.string() }),
  nonce: z.number().int().nonnegative(),
  signature: z.object({
    r: z.string().regex(/^0x[0-9a-fA-F]{1,64}$/),
    s: z.string().regex(/^0x[0-9a-fA-F]{1,64}$/),
    v: z.union([z.literal(27), z.literal(28)]),
  }),
  vaultAddress: z
    .string()
    .regex(/^0x[0-9a-fA-F]{40}$/)
    .nullish(),
  expiresAfter: z.number().int().nonnegative().nullish(),
});

export interface AuthDeps {
  /** Sim time. */
  now(): number;
  /** Wall time: nonces near it are also in time (see NonceBook.refusal). */
  wallNow?(): number;
  nonces: NonceBook;
  /** Signing flavours accepted (default both: the sim serves as either network). */
  chains: readonly SigningChain[];
  /** The account a signer acts for: itself for an account, its master for an approved agent, else undefined. */
  masterOf(address: Address): Address | undefined;
  /** Nonces kept for a signer acting for `user` (20, plus 1 per $1M of the account's volume, ≤ 100). */
  noncesKept?(user: Address): number;
  /** The address-based request limit; absent when the world runs without limits. */
  addressBudget?: AddressBudget;
  /** USDC an account has traded in all (what frees requests). */
  volumeUsd?(user: Address): number;
}

type AuthResult =
  | {
      ok: true;
      user: Address;
      signer: Address;
      action: Record<string, unknown> & { type: string };
      nonce: number;
    }
  | { ok: false; error: string };

const DESERIALIZE = "Failed to deserialize the JSON body into the target type";
const unknownSigner = (a: Address) => `User or API Wallet ${a} does not exist.`;

/**
 * Verify one /exchange request as the exchange does: recover the signer from the signature over the
 * action exactly as received, map an agent to its master, check expiry and the nonce rule, then
 * consume the nonce. A tampered action recovers some other address, which has no account, so it is
 * refused with the exchange's own text.
 */
export async function authenticate(body: unknown, deps: AuthDeps): Promise<AuthResult> {
  const parsed = exchangeRequestSchema.safeParse(body);
  if (!parsed.success)
    return { ok: false, error: `Invalid request: ${parsed.error.issues[0]?.message ?? "bad body"}` };
  const raw = body as { action: Record<string, unknown> & { type: string } };
  const { nonce, signature, vaultAddress, expiresAfter } = parsed.data;
  const action = raw.action;
  const now = deps.now();

  if (vaultAddress)
    return { ok: false, error: `Vault or sub-account ${vaultAddress.toLowerCase()} does not exist.` };
  // Clients set expiresAfter from their wall clock (as nonces), so it is judged against wall time even
  // when the sim clock runs fast or was advanced.
  const expiryNow = deps.wallNow?.() ?? now;
  if (expiresAfter != null && expiresAfter < expiryNow) {
    return { ok: false, error: `Action expired: expiresAfter ${expiresAfter} is before ${expiryNow}` };
  }

  // A fund-moving or approval action is never an L1 action, whoever signs it: taking it the L1
  // way would let an agent, whose L1 signature maps to its master, move the master's funds.
  if (isUserSignedType(action.type) && !isUserSignedAction(action))
    return { ok: false, error: `${DESERIALIZE}: action: missing field \`signatureChainId\`` };

  let signer: Address;
  let user: Address | undefined;
  try {
    if (isUserSignedAction(action)) {
      const chain = action.hyperliquidChain;
      if (chain !== "Mainnet" && chain !== "Testnet") return { ok: false, error: "Invalid hyperliquidChain" };
      if (!deps.chains.includes(chain))
        return { ok: false, error: `This exchange does not accept ${chain} actions` };
      const actionNonce = action.nonce ?? action.time;
      if (actionNonce !== nonce)
        return { ok: false, error: "Invalid nonce: action nonce differs from request nonce" };
      signer = await recoverUserSigner(action, signature as WireSignature);
      user = deps.masterOf(signer);
      // The exchange takes the signer of a user-signed action as the account; an agent holds nothing.
      if (user && user !== signer)
        return { ok: false, error: `Must deposit before performing actions. User: ${signer}` };
    } else {
      const candidates: Address[] = [];
      for (const chain of deps.chains) {
        const candidate = await recoverL1Signer({
          action,
          nonce,
          signature: signature as WireSignature,
          expiresAfter: expiresAfter ?? undefined,
          chain,
        });
        candidates.push(candidate);
        user = deps.masterOf(candidate);
        if (user) break;
      }
      signer = candidates[candidates.length - 1]!;
      if (!user) signer = candidates[0]!;
    }
  } catch {
    return { ok: false, error: "Invalid signature" };
  }
  if (!user) return { ok: false, error: unknownSigner(signer) };

  const kept = deps.noncesKept?.(user);
  const refusal = deps.nonces.refusal(signer, nonce, now, deps.wallNow?.(), kept);
  if (refusal) return { ok: false, error: refusal };
  deps.nonces.record(signer, nonce, kept);
  return { ok: true, user, signer, action, nonce };
}

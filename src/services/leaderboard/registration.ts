import { z } from "zod";
import { num } from "../../core/decimal.ts";
import type { Address } from "../../exchange/index.ts";
import {
  type AccountSource,
  LEADERBOARD_NETWORKS,
  type LeaderboardNetwork,
  NETWORK_CHOICES,
} from "./account-source.ts";
import { markOf } from "./ledger.ts";
import type { AgentStore } from "./store.ts";
import { trackingOf } from "./tracking.ts";

const INVALID_ADDRESS = "Invalid Ethereum address (expected 0x + 40 hex chars)";
const MAX_DISPLAY_NAME = 32;
const CONTROL_IN_NAME = "display_name must not contain control characters";

/** C0 controls (NUL, newline, escape…), DEL and C1 controls: invisible or able to break a board or a log. */
const CONTROL = /\p{Cc}/u;

const registrationSchema = z.object({
  address: z.string({ error: INVALID_ADDRESS }).regex(/^0x[0-9a-fA-F]{40}$/, INVALID_ADDRESS),
  network: z.enum(LEADERBOARD_NETWORKS, { error: `network must be ${NETWORK_CHOICES}` }).default("testnet"),
  display_name: z
    .string({ error: "display_name must be a string" })
    .refine((s) => !CONTROL.test(s), CONTROL_IN_NAME)
    // Characters, not UTF-16 units: an emoji counts once.
    .refine(
      (s) => [...s].length <= MAX_DISPLAY_NAME,
      `display_name must be at most ${MAX_DISPLAY_NAME} characters`,
    )
    .default(""),
});

interface RegistrationRequest {
  address: string;
  network: LeaderboardNetwork;
  displayName: string;
}

/** Why a registration was refused: `status` 400 (bad input) or 502 (exchange failure). */
export class RegistrationError extends Error {
  constructor(
    readonly status: 400 | 502,
    message: string,
  ) {
    super(message);
  }
}

/** Validate a registration body; the address check comes first, with the contract's exact text. */
export function parseRegistration(body: unknown): RegistrationRequest {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new RegistrationError(400, "Request body must be a JSON object");
  }
  const parsed = registrationSchema.safeParse(body);
  if (!parsed.success) {
    const order = ["address", "network", "display_name"];
    const issue = [...parsed.error.issues].sort(
      (a, b) => order.indexOf(String(a.path[0])) - order.indexOf(String(b.path[0])),
    )[0];
    throw new RegistrationError(400, issue?.message ?? "Invalid registration");
  }
  const { address, network, display_name } = parsed.data;
  return { address: address.toLowerCase(), network, displayName: display_name };
}

interface RegistrationResponse {
  registered: true;
  new: boolean;
  address: string;
  network: LeaderboardNetwork;
  initial_account_value: number;
}

/**
 * Register an agent: its account value now (summed over the main dex and HIP-3 dexes) becomes its
 * baseline, and the ledger's position is marked so later deposits and withdrawals can be told apart
 * from trading. An address already registered on that network is returned unchanged (`new: false`).
 */
export async function register(
  req: RegistrationRequest,
  deps: { store: AgentStore; source: AccountSource; now: () => number },
): Promise<RegistrationResponse> {
  const existing = await deps.store.get(req.network, req.address);
  const answer = (isNew: boolean, initial: string): RegistrationResponse => ({
    registered: true,
    new: isNew,
    address: req.address,
    network: req.network,
    initial_account_value: num(initial),
  });
  if (existing) return answer(false, existing.initialAccountValue);

  const accounts = deps.source(req.network);
  const user = req.address as Address;
  let reading: Awaited<ReturnType<typeof accounts.account>>;
  let ledger: Awaited<ReturnType<typeof accounts.ledger>>;
  try {
    reading = await accounts.account(user, await accounts.hip3Dexes());
    ledger = await accounts.ledger(user, 0);
  } catch (err) {
    throw new RegistrationError(
      502,
      `Failed to query Hyperliquid: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  const mark = markOf(ledger);
  const inserted = await deps.store.insert({
    network: req.network,
    address: req.address,
    displayName: req.displayName,
    initialAccountValue: reading.accountValue,
    registeredAt: deps.now(),
    ledgerMark: mark,
    positionsCount: reading.positionsCount,
    tracking: trackingOf(reading.perDex, mark, deps.now()),
  });
  if (!inserted) {
    const winner = await deps.store.get(req.network, req.address);
    return answer(false, winner!.initialAccountValue);
  }
  return answer(true, reading.accountValue);
}

import type { Network } from "../config/defaults.ts";
import { UserError } from "../core/errors.ts";

export const YES_HELP = "confirm that real orders go to mainnet (required there)";

/**
 * Orders on mainnet spend real money, so a command that sends them there asks for `--yes` — a stray
 * HL_NETWORK=mainnet in a shell must not turn a trial run into a live one. `effect` says what the
 * command does there for one that sends no orders (moves USDC, changes an account setting).
 */
export function requireMainnetConsent(
  network: Network,
  yes: boolean | undefined,
  command: string,
  effect = "sends real orders",
): void {
  if (network === "mainnet" && !yes) {
    throw new UserError(`${command} on mainnet ${effect}: add --yes to confirm`);
  }
}

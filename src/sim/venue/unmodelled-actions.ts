/**
 * Exchange actions of the `@nktkas/hyperliquid` SDK (0.32.2) that the sim world does not model: TWAP
 * orders, spot tokens and transfers, sub-accounts, vaults, staking, claiming referral rewards,
 * borrow/lend, multi-sig, unified accounts and portfolio margin, EVM links, deployments, and the
 * leverage-targeted top-up (`topUpIsolatedOnlyMargin`: how the exchange turns the target into an
 * amount is not on record). Each is refused as not modelled rather than accepted without effect or
 * answered as if the account lacked something: a rehearsal that sends one learns at once that paper
 * cannot stand in for live there (docs/paper-parity.md lists them, with why).
 */
const UNMODELLED: ReadonlySet<string> = new Set([
  "borrowLend",
  "cDeposit",
  "CSignerAction",
  "CValidatorAction",
  "cWithdraw",
  "claimRewards",
  "convertToMultiSigUser",
  "createSubAccount",
  "createVault",
  "evmUserModify",
  "linkStakingUser",
  "multiSig",
  "perpDeploy",
  "sendToEvmWithData",
  "setDisplayName",
  "spotDeploy",
  "spotSend",
  "spotUser",
  "subAccountModify",
  "subAccountSpotTransfer",
  "subAccountTransfer",
  "tokenDelegate",
  "topUpIsolatedOnlyMargin",
  "twapCancel",
  "twapOrder",
  "userPortfolioMargin",
  "validatorL1Stream",
  "vaultDistribute",
  "vaultModify",
  "vaultTransfer",
]);

/** The refusal of an action type the exchange knows and the sim does not model, else null. */
export function unmodelledRefusal(type: string): string | null {
  return UNMODELLED.has(type) ? `${type} is not modelled by the sim world.` : null;
}

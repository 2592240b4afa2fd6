/** Public surface of the wallet modules (for the CLI, MCP tools and the exchange client). */
export { createKeystore, randomPassword, type WalletAutoResult, walletAuto } from "./auto.ts";
export {
  approveBuilderFee,
  type BuilderConfig,
  type BuilderStatus,
  builderConfig,
  builderFeeForClient,
  builderStatus,
} from "./builder.ts";
export { mergeEnvFile, readEnvFile } from "./env-file.ts";
export { agentHome, envFilePath, keystoreDir } from "./home.ts";
export { listWallets, NO_KEYSTORES_TEXT, type WalletFile } from "./keystore-store.ts";
export { decryptKeystore, encryptKeystore, KeystoreError } from "./keystore-v3.ts";
export { type ResolvedKey, resolvePrivateKey, resolvePrivateKeyIfAny } from "./resolve-key.ts";
export { type SetupCheckResult, setupCheck } from "./setup-check.ts";

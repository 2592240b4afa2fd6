/** Public surface of the wallet modules (for the CLI, MCP tools and the exchange client). */
export { createKeystore, walletAuto } from "./auto.ts";
export { approveBuilderFee, builderConfig, builderFeeForClient, builderStatus } from "./builder.ts";
export { mergeEnvFile, readEnvFile } from "./env-file.ts";
export { agentHome, envFilePath, keystoreDir } from "./home.ts";
export { listWallets, NO_KEYSTORES_TEXT } from "./keystore-store.ts";
export { decryptKeystore, encryptKeystore, KeystoreError } from "./keystore-v3.ts";
export { resolvePrivateKey, resolvePrivateKeyIfAny } from "./resolve-key.ts";
export { type SetupCheckResult, setupCheck } from "./setup-check.ts";

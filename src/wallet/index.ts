/** Public surface of the wallet modules (for the CLI, MCP tools and the exchange client). */
export { walletAuto } from "./auto.ts";
export { builderStatus } from "./builder.ts";
export { listWallets, NO_KEYSTORES_TEXT } from "./keystore-store.ts";
export { setupCheck } from "./setup-check.ts";

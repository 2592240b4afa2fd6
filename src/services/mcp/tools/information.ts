import { z } from "zod";
import { strategyCatalog } from "../../../strategies/catalog.ts";
import {
  listWallets,
  NO_KEYSTORES_TEXT,
  builderStatus as readBuilderStatus,
  setupCheck,
  walletAuto,
} from "../../../wallet/index.ts";
import { defineTool, READ_ONLY } from "../tool.ts";

export const strategies = defineTool({
  name: "strategies",
  title: "Strategy catalog",
  group: "information",
  description:
    "List the 14 trading strategies (description, type, default numeric params) and the YEX yield-perp markets; " +
    "the same data as GET /api/strategies.",
  input: {},
  annotations: READ_ONLY,
  async run() {
    return strategyCatalog();
  },
});

export const builderStatus = defineTool({
  name: "builder_status",
  title: "Builder fee configuration",
  group: "information",
  description:
    "Builder fee configuration attached to strategy and WOLF orders: enabled, builder address, fee in bps and " +
    "tenths of a bp, and the max fee rate string used for approval.",
  input: {},
  annotations: READ_ONLY,
  async run(_args, ctx) {
    return readBuilderStatus(ctx.env);
  },
});

export const walletList = defineTool({
  name: "wallet_list",
  title: "Saved keystores",
  group: "information",
  description: 'List the saved encrypted keystores (address and file path), or "No keystores found.".',
  input: {},
  annotations: READ_ONLY,
  async run(_args, ctx) {
    const wallets = listWallets(ctx.env);
    return wallets.length === 0 ? NO_KEYSTORES_TEXT : wallets;
  },
});

export const walletAutoTool = defineTool({
  name: "wallet_auto",
  title: "Create a wallet",
  group: "information",
  description:
    "Create a new wallet non-interactively: random private key, encrypted keystore (0600) under ~/.hl-agent/keystore " +
    "with a random 32-character password. Returns the address, the password and the file paths — never the private " +
    "key. The password is returned because the interface requires it: treat it as a secret. save_env writes it to " +
    "~/.hl-agent/env (0600) for automatic use.",
  input: {
    save_env: z.boolean().default(true).describe("Save the password to ~/.hl-agent/env for auto-detection"),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(args, ctx) {
    return walletAuto({ saveEnv: args.save_env, env: ctx.env });
  },
});

export const setupCheckTool = defineTool({
  name: "setup_check",
  title: "Setup check",
  group: "information",
  description:
    "Validate the environment: SDK present, key source, network, builder fee approval, LLM key, data dir writable. " +
    "Returns {ok:[...], issues:[...], passed}.",
  input: {},
  annotations: { ...READ_ONLY, openWorldHint: true },
  async run(_args, ctx) {
    return setupCheck({ env: { ...ctx.env, DATA_DIR: ctx.dataDir } });
  },
});

import { createInterface } from "node:readline";
import type { Command } from "commander";
import { generatePrivateKey, privateKeyToAddress } from "viem/accounts";
import { dataDir, resolveNetwork } from "../config/env.ts";
import { UserError } from "../core/errors.ts";
import { openClientSession } from "../exchange/index.ts";
import { createKeystore, walletAuto } from "../wallet/auto.ts";
import { bootstrap } from "../wallet/bootstrap.ts";
import { approveBuilderFee, builderConfig, builderStatus, feePercentString } from "../wallet/builder.ts";
import { listWallets, NO_KEYSTORES_TEXT } from "../wallet/keystore-store.ts";
import type { Hex } from "../wallet/keystore-v3.ts";
import { resolvePrivateKey, resolvePrivateKeyIfAny } from "../wallet/resolve-key.ts";
import { setupCheck } from "../wallet/setup-check.ts";
import { claimUsdyp, NUNCHI_API_URL } from "../wallet/usdyp-claim.ts";
import { DATA_DIR_FLAG, DATA_DIR_HELP } from "./data-dir.ts";

const out = (text: string): void => {
  process.stdout.write(`${text}\n`);
};

/** Lines of piped stdin, read once (for `--password-stdin` / `--key-stdin`). */
let stdinLines: Promise<string[]> | undefined;
function readStdinLines(): Promise<string[]> {
  stdinLines ??= new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    process.stdin.on("data", (c: Buffer) => chunks.push(c));
    process.stdin.on("end", () => resolve(Buffer.concat(chunks).toString("utf8").split(/\r?\n/)));
    process.stdin.on("error", reject);
  });
  return stdinLines;
}

/** Ask on the terminal without echoing what is typed. */
function promptHidden(question: string): Promise<string> {
  if (!process.stdin.isTTY) {
    throw new UserError(
      `${question.replace(/:\s*$/, "")} needed, but stdin is not a terminal (use the --*-stdin options)`,
    );
  }
  return new Promise((resolve) => {
    const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
    const muted = rl as unknown as { _writeToOutput: (s: string) => void };
    let asked = false;
    muted._writeToOutput = (s: string) => {
      if (!asked) process.stderr.write(s);
    };
    rl.question(question, (answer) => {
      rl.close();
      process.stderr.write("\n");
      resolve(answer);
    });
    asked = true;
  });
}

async function confirm(question: string): Promise<boolean> {
  if (!process.stdin.isTTY) throw new UserError("confirmation needed but stdin is not a terminal: add --yes");
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  const answer = await new Promise<string>((resolve) => rl.question(`${question} [y/N] `, resolve));
  rl.close();
  return /^y(es)?$/i.test(answer.trim());
}

async function newPassword(fromStdin: boolean, lineIndex: number): Promise<string> {
  if (fromStdin) {
    const pw = (await readStdinLines())[lineIndex] ?? "";
    if (pw === "") throw new UserError("no password on stdin");
    return pw;
  }
  const pw = await promptHidden("Encryption password: ");
  if (pw === "") throw new UserError("the password must not be empty");
  if ((await promptHidden("Confirm password: ")) !== pw) throw new UserError("Passwords don't match.");
  return pw;
}

function registerWallet(program: Command): void {
  const wallet = program
    .command("wallet")
    .description("Encrypted keystores in ~/.hl-agent/keystore (HL_AGENT_HOME)");

  wallet
    .command("create")
    .description("Create a new key and save it encrypted (the key itself is never printed)")
    .option("--password-stdin", "read the password from the first line of stdin")
    .action(async (opts: { passwordStdin?: boolean }) => {
      const password = await newPassword(Boolean(opts.passwordStdin), 0);
      const key = generatePrivateKey();
      const path = await createKeystore(key, password);
      out(`New address: ${privateKeyToAddress(key)}`);
      out(`Keystore saved: ${path}`);
      out("Keep the password safe: it cannot be recovered.");
    });

  wallet
    .command("import")
    .description("Encrypt an existing private key into a keystore")
    .option("--key-stdin", "read the private key from the first line of stdin")
    .option("--password-stdin", "read the password from stdin (the line after the key with --key-stdin)")
    .action(async (opts: { keyStdin?: boolean; passwordStdin?: boolean }) => {
      const raw = opts.keyStdin ? ((await readStdinLines())[0] ?? "") : await promptHidden("Private key: ");
      const trimmed = raw.trim();
      if (!/^(0x)?[0-9a-fA-F]{64}$/.test(trimmed))
        throw new UserError("not a private key (expected 64 hex digits)");
      const key = (trimmed.startsWith("0x") ? trimmed : `0x${trimmed}`).toLowerCase() as Hex;
      const password = await newPassword(Boolean(opts.passwordStdin), opts.keyStdin ? 1 : 0);
      const path = await createKeystore(key, password);
      out(`Keystore saved: ${path}`);
    });

  wallet
    .command("list")
    .description("List saved keystores")
    .option("--json", "print JSON for machines")
    .action((opts: { json?: boolean }) => {
      const wallets = listWallets();
      if (opts.json) return out(JSON.stringify(wallets, null, 2));
      if (wallets.length === 0)
        return out(`${NO_KEYSTORES_TEXT} Run 'hl wallet auto' or 'hl wallet import'.`);
      out(`${"Address".padEnd(44)}Path`);
      out("-".repeat(80));
      for (const w of wallets) out(`${w.address.padEnd(44)}${w.path}`);
    });

  wallet
    .command("auto")
    .description("Create a wallet non-interactively with a random password")
    .option("--save-env", "save the password to ~/.hl-agent/env so the agent unlocks it by itself")
    .option("--json", "print one line of JSON (implies --save-env)")
    .action(async (opts: { saveEnv?: boolean; json?: boolean }) => {
      const r = await walletAuto({ saveEnv: Boolean(opts.saveEnv || opts.json) });
      if (opts.json) return out(JSON.stringify(r));
      out(`Address:  ${r.address}`);
      out(`Password: ${r.password}`);
      out(`Keystore: ${r.keystore}`);
      if (r.env_file) out(`Env file: ${r.env_file} (the agent will unlock this wallet by itself)`);
      else out(`To use this wallet, set:\n  export HL_KEYSTORE_PASSWORD=${r.password}`);
      out("SAVE THE PASSWORD — it cannot be recovered.");
    });

  wallet
    .command("export")
    .description("Reveal the private key of a keystore (terminal only, with --reveal)")
    .option("-k, --keystore <address>", "which keystore (default: the one trading would use)")
    .option("--reveal", "really print the private key")
    .action(async (opts: { keystore?: string; reveal?: boolean }) => {
      if (!opts.reveal) throw new UserError("exporting prints the private key: add --reveal to confirm");
      if (!process.stdout.isTTY)
        throw new UserError("refusing to print a private key to a pipe or file; run it in a terminal");
      const key = await resolvePrivateKey({ keystore: opts.keystore }).catch(async (err: unknown) => {
        if (!(err instanceof UserError) || !/needs a password/.test(err.message)) throw err;
        return resolvePrivateKey({
          keystore: opts.keystore,
          password: await promptHidden("Keystore password: "),
        });
      });
      out(`Address:     ${key.address}`);
      out(`Private key: ${key.privateKey}`);
    });
}

function registerBuilder(program: Command): void {
  const builder = program
    .command("builder")
    .description("Builder fee (BUILDER_ADDRESS, BUILDER_FEE_TENTHS_BPS)");

  builder
    .command("status")
    .description("Show the builder fee configuration")
    .option("--json", "print JSON for machines")
    .option(DATA_DIR_FLAG, DATA_DIR_HELP)
    .action((opts: { json?: boolean }) => {
      const s = builderStatus();
      if (opts.json) return out(JSON.stringify(s, null, 2));
      if (!s.enabled) {
        out("Builder fee: DISABLED");
        out("  Set BUILDER_ADDRESS and BUILDER_FEE_TENTHS_BPS to enable.");
        return;
      }
      out("Builder fee: ENABLED");
      out(`  Address: ${s.builder_address}`);
      out(`  Fee: ${s.fee_bps} bps (${s.fee_rate_tenths_bps} tenths)`);
      out(`  Max rate: ${s.max_fee_rate_str}`);
    });

  builder
    .command("approve")
    .description("Approve the builder fee on your account (signs approveBuilderFee with the main wallet)")
    .option("--network <network>", "mainnet | testnet | paper (default: HL_NETWORK, else paper)")
    .option("-k, --keystore <address>", "sign with this keystore")
    .option("-y, --yes", "do not ask for confirmation")
    .option(DATA_DIR_FLAG, DATA_DIR_HELP)
    .action(async (opts: { network?: string; keystore?: string; yes?: boolean }) => {
      const cfg = builderConfig();
      if (!cfg.enabled)
        throw new UserError("Builder fee not configured. Set BUILDER_ADDRESS and BUILDER_FEE_TENTHS_BPS.");
      const network = resolveNetwork(opts.network);
      const key = await resolvePrivateKeyIfAny({ keystore: opts.keystore });
      const session = await openClientSession({ network, privateKey: key?.privateKey });
      try {
        for (const note of session.notes) out(note);
        out(`Builder: ${cfg.address}`);
        out(`Fee rate: ${cfg.feeTenthsBps / 10} bps (${feePercentString(cfg.feeTenthsBps)})`);
        out(`Account: ${session.client.address ?? "none"} on ${network}`);
        if (!opts.yes && !(await confirm("Approve this builder fee on your account?"))) {
          out("Not approved.");
          return;
        }
        const outcome = await approveBuilderFee(session.client, cfg);
        out(
          outcome.signed
            ? `Approved: the exchange now allows up to ${feePercentString(outcome.approvedTenthsBps)} for this builder.`
            : `Already approved (up to ${feePercentString(outcome.approvedTenthsBps)}); nothing signed.`,
        );
      } finally {
        await session.close();
      }
    });
}

function registerSetup(program: Command): void {
  const setup = program.command("setup").description("Environment checks and one-time setup");
  setup
    .command("bootstrap")
    .description("First run: check Node.js, create the data directory, run the environment check")
    .option("--network <network>", "mainnet | testnet | paper (default: HL_NETWORK, else paper)")
    .option("--data-dir <dir>", "data directory (default: DATA_DIR, else ./data)")
    .action(async (opts: { network?: string; dataDir?: string }) => {
      const r = await bootstrap({ dataDir: opts.dataDir ?? dataDir(), network: opts.network });
      out(`  OK  Node.js ${r.node}`);
      out(`  OK  data directory ${r.dataDir}`);
      for (const line of r.check.ok) out(`  OK  ${line}`);
      for (const line of r.check.issues) out(`  !!  ${line}`);
      out(`\nBootstrap complete. Next: ${r.next}`);
    });
  setup
    .command("claim-usdyp")
    .description("Claim testnet USDyP (collateral of the YEX markets) for the configured wallet")
    .option("--address <address>", "claim for this address (default: the configured wallet)")
    .option(
      "--url <url>",
      `claim service base URL (default: USDYP_CLAIM_URL, else the sim world on paper, else ${NUNCHI_API_URL})`,
    )
    .option("--network <network>", "whose wallet: testnet | paper (default: HL_NETWORK, else paper)")
    .option("--json", "print JSON for machines")
    .option(DATA_DIR_FLAG, DATA_DIR_HELP)
    .action(async (opts: { address?: string; url?: string; network?: string; json?: boolean }) => {
      const network = resolveNetwork(opts.network);
      if (network === "mainnet") throw new UserError("USDyP is claimed on testnet only");
      const session = await openClientSession({ network });
      try {
        const address = opts.address ?? session.client.address;
        if (!address)
          throw new UserError("no wallet configured: run 'hl wallet auto' first, or pass --address");
        const base =
          opts.url ||
          process.env.USDYP_CLAIM_URL ||
          (network === "paper" ? session.client.apiUrl : NUNCHI_API_URL);
        if (!opts.json) out(`Claiming USDyP for ${address} at ${base} ...`);
        const r = await claimUsdyp(base, address);
        out(opts.json ? JSON.stringify(r, null, 2) : `Claimed: ${JSON.stringify(r.body)}`);
      } finally {
        await session.close();
      }
    });
  setup
    .command("check")
    .description("Check SDK, key source, network, builder fee approval, LLM key and data dir")
    .option("--network <network>", "mainnet | testnet | paper (default: HL_NETWORK, else paper)")
    .option("--json", "print JSON for machines")
    .option(DATA_DIR_FLAG, DATA_DIR_HELP)
    .action(async (opts: { network?: string; json?: boolean }) => {
      const r = await setupCheck({ network: opts.network });
      if (!r.passed) process.exitCode = 1;
      if (opts.json) return out(JSON.stringify(r, null, 2));
      out("Environment Check");
      out("=".repeat(40));
      for (const line of r.ok) out(`  OK  ${line}`);
      if (r.issues.length > 0) {
        out("");
        for (const line of r.issues) out(`  !!  ${line}`);
        out(`\n${r.issues.length} issue(s) found.`);
      } else {
        out("\nAll checks passed.");
      }
    });
}

/** `hl wallet …`, `hl builder …` and `hl setup check`. */
export function register(program: Command): void {
  registerWallet(program);
  registerBuilder(program);
  registerSetup(program);
}

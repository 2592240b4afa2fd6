import type { Command } from "commander";
import { resolveNetwork } from "../config/env.ts";
import { UserError } from "../core/errors.ts";
import {
  type DexFunds,
  dexLabel,
  dexSendRequest,
  modeMeaning,
  planDexSend,
  readDexFunds,
  sendDexUsdc,
  turnDexAbstractionOn,
} from "../exchange/dex-funds.ts";
import { type ClientSession, openClientSession } from "../exchange/index.ts";
import { table } from "./account.ts";
import { confirm } from "./confirm.ts";
import { DATA_DIR_FLAG, DATA_DIR_HELP } from "./data-dir.ts";
import { requireMainnetConsent } from "./mainnet.ts";

const NETWORK_HELP = "mainnet | testnet | paper (default: HL_NETWORK, else paper)";

interface Common {
  network?: string;
  json?: boolean;
  yes?: boolean;
}

/** `hl dex status|send|abstraction`: the account's USDC on the HIP-3 dexes and its abstraction mode. */
export function register(program: Command): void {
  const dex = program
    .command("dex")
    .description("USDC on the HIP-3 dexes (xyz, yex): balances and mode, moves, dex abstraction");

  dex
    .command("status")
    .description("Show the account's abstraction mode and its USDC on the main dex and on each HIP-3 dex")
    .option("--network <network>", NETWORK_HELP)
    .option("--json", "print JSON for machines")
    .option(DATA_DIR_FLAG, DATA_DIR_HELP)
    .action(async (opts: Common) => {
      await withSession(opts, async ({ client }, say) => {
        const funds = await readDexFunds(client);
        if (opts.json) return print(fundsJson(client.network, funds));
        say(renderFunds(client.network, client.apiUrl, funds));
      });
    });

  dex
    .command("send")
    .description("Move USDC between the main perp balance and a HIP-3 dex (sendAsset to yourself)")
    .argument("<amount>", "USDC, a positive decimal")
    .option("--to <dex>", "the dex that receives it (default: main)")
    .option("--from <dex>", "the dex it leaves (default: main)")
    .option("--network <network>", NETWORK_HELP)
    .option("-y, --yes", "skip the confirmation prompt (required on mainnet)")
    .option("--json", "print the result as JSON")
    .option(DATA_DIR_FLAG, DATA_DIR_HELP)
    .action(async (amountArg: string, opts: Common & { to?: string; from?: string }) => {
      // Bad input fails here, before any network call.
      const request = dexSendRequest(amountArg, opts.from, opts.to);
      const network = resolveNetwork(opts.network);
      requireMainnetConsent(network, opts.yes, "hl dex send", "moves real USDC");
      await withSession(opts, async ({ client }, say) => {
        const send = planDexSend(request, await client.hip3Dexes());
        const [from, to] = [dexLabel(send.sourceDex), dexLabel(send.destinationDex)];
        const summary = `Move ${send.amount} USDC from ${from} to ${to} on ${network} (account ${client.address})`;
        if (!opts.yes && process.stdin.isTTY && !(await confirm(`${summary}\nConfirm? [y/N] `))) {
          say("Cancelled.");
          return;
        }
        const token = await sendDexUsdc(client, send);
        const after = await readDexFunds(client);
        const withdrawable = (dex: string) => after.dexes.find((d) => d.dex === dex)?.withdrawable ?? "?";
        if (opts.json)
          return print({
            network,
            user: after.user,
            from,
            to,
            amount: send.amount,
            token,
            withdrawable: { [from]: withdrawable(send.sourceDex), [to]: withdrawable(send.destinationDex) },
          });
        say(
          `Moved ${send.amount} USDC from ${from} to ${to}. Withdrawable now: ${from} ${withdrawable(send.sourceDex)}, ${to} ${withdrawable(send.destinationDex)}.`,
        );
      });
    });

  dex
    .command("abstraction")
    .description("Turn HIP-3 dex abstraction on: HIP-3 dexes then draw on the main perp balance")
    .argument("<state>", "on (the only state offered here)")
    .option("--network <network>", NETWORK_HELP)
    .option("-y, --yes", "skip the confirmation prompt (required on mainnet)")
    .option("--json", "print the result as JSON")
    .option(DATA_DIR_FLAG, DATA_DIR_HELP)
    .action(async (state: string, opts: Common) => {
      if (state.toLowerCase() !== "on")
        throw new UserError(
          `only "hl dex abstraction on" is offered, got "${state}": what the exchange does with positions and USDC already on a HIP-3 dex when the mode changes back is not on record`,
        );
      const network = resolveNetwork(opts.network);
      requireMainnetConsent(
        network,
        opts.yes,
        "hl dex abstraction",
        "changes the real account's margin mode",
      );
      await withSession(opts, async ({ client }, say) => {
        const summary = `Turn HIP-3 dex abstraction on for ${client.address} on ${network} (signs userDexAbstraction)`;
        if (!opts.yes && process.stdin.isTTY && !(await confirm(`${summary}\nConfirm? [y/N] `))) {
          say("Cancelled.");
          return;
        }
        const { signed } = await turnDexAbstractionOn(client);
        if (opts.json) return print({ network, user: client.address, dex_abstraction: true, signed });
        say(
          signed
            ? "Dex abstraction is on: HIP-3 dexes now draw on the main perp balance."
            : "Dex abstraction was already on; nothing signed.",
        );
      });
    });
}

/** Open the session, print its notes (to stderr under --json), run, close. */
async function withSession(
  opts: Common,
  body: (session: ClientSession, say: (text: string) => void) => Promise<void>,
): Promise<void> {
  const session = await openClientSession({ network: resolveNetwork(opts.network) });
  const say = (text: string) => (opts.json ? process.stderr : process.stdout).write(`${text}\n`);
  try {
    for (const note of session.notes) say(note);
    if (!session.client.address)
      throw new UserError(`no wallet configured for ${session.client.network}: set HL_PRIVATE_KEY`);
    await body(session, say);
  } finally {
    await session.close();
  }
}

function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

function fundsJson(network: string, f: DexFunds) {
  return {
    network,
    user: f.user,
    abstraction: f.mode,
    dex_abstraction: f.dexAbstraction,
    dexes: f.dexes.map((d) => ({
      dex: dexLabel(d.dex),
      collateral: d.collateral,
      account_value: d.accountValue,
      withdrawable: d.withdrawable,
      margin_used: d.marginUsed,
      positions: d.positions,
    })),
  };
}

function renderFunds(network: string, url: string, f: DexFunds): string {
  const rows = f.dexes.map((d) => [
    dexLabel(d.dex),
    d.collateral,
    d.accountValue,
    d.withdrawable,
    d.marginUsed,
    String(d.positions),
  ]);
  const lines = [
    `Account ${f.user} on ${network} (${url})`,
    `Mode: ${modeMeaning(f.mode)} (userAbstraction ${JSON.stringify(f.mode)}, userDexAbstraction ${String(f.dexAbstraction)})`,
    "",
    table([["DEX", "TOKEN", "VALUE", "WITHDRAWABLE", "MARGIN", "POSITIONS"], ...rows]),
  ];
  if (f.mode === "default" || f.mode === "disabled")
    lines.push(
      "",
      "Fund a HIP-3 dex: hl dex send AMOUNT --to DEX (back: --from DEX); or hl dex abstraction on.",
    );
  return lines.join("\n");
}

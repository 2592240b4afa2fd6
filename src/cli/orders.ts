import type { Command } from "commander";
import { resolveNetwork } from "../config/env.ts";
import { D } from "../core/decimal.ts";
import { UserError } from "../core/errors.ts";
import { cancelOrders, closePositions, restingOrders } from "../exchange/flatten.ts";
import { canonicalInstrument, openClientSession } from "../exchange/index.ts";
import { DATA_DIR_FLAG, DATA_DIR_HELP } from "./data-dir.ts";
import { requireMainnetConsent } from "./mainnet.ts";

interface NetOpts {
  network?: string;
  json?: boolean;
}

const NETWORK_HELP = "mainnet | testnet | paper (default: HL_NETWORK, else paper)";

async function withWallet<T>(
  opts: NetOpts,
  fn: (session: Awaited<ReturnType<typeof openClientSession>>) => Promise<T>,
) {
  const session = await openClientSession({ network: resolveNetwork(opts.network) });
  try {
    const { client } = session;
    if (!client.address)
      throw new UserError(`no wallet configured for ${client.network}: set HL_PRIVATE_KEY`);
    for (const note of session.notes) (opts.json ? process.stderr : process.stdout).write(`${note}\n`);
    return await fn(session);
  } finally {
    await session.close();
  }
}

function slippageOption(raw: string): string {
  if (!/^\d+(\.\d+)?$/.test(raw) || new D(raw).lte(0) || new D(raw).gte(1))
    throw new UserError(`--slippage must be a fraction between 0 and 1 (e.g. 0.01 = 1 %), got "${raw}"`);
  return raw;
}

/** `hl orders`, `hl cancel`, `hl close`: resting orders and the way out of every position. */
export function register(program: Command): void {
  program
    .command("orders")
    .description("List resting orders on every dex")
    .argument("[instrument]", "only this instrument")
    .option("--network <network>", NETWORK_HELP)
    .option("--json", "print JSON for machines")
    .option(DATA_DIR_FLAG, DATA_DIR_HELP)
    .action(async (instrument: string | undefined, opts: NetOpts) => {
      if (instrument) canonicalInstrument(instrument);
      await withWallet(opts, async ({ client }) => {
        const orders = await restingOrders(client, instrument);
        if (opts.json) {
          process.stdout.write(`${JSON.stringify({ network: client.network, orders }, null, 2)}\n`);
          return;
        }
        if (orders.length === 0) {
          process.stdout.write("No resting orders.\n");
          return;
        }
        for (const o of orders)
          process.stdout.write(
            `${o.instrument}  ${o.side.toUpperCase()} ${o.size} @ ${o.price}  (oid ${o.oid})\n`,
          );
      });
    });

  program
    .command("cancel")
    .description("Cancel resting orders: one instrument's (or one --oid), or --all")
    .argument("[instrument]", "cancel this instrument's orders")
    .option("--oid <oid>", "only this order id (needs the instrument)")
    .option("--all", "every resting order on every dex")
    .option("--network <network>", NETWORK_HELP)
    .option("--json", "print JSON for machines")
    .option(DATA_DIR_FLAG, DATA_DIR_HELP)
    .action(async (instrument: string | undefined, opts: NetOpts & { oid?: string; all?: boolean }) => {
      if (!instrument && !opts.all)
        throw new UserError("name an instrument, or cancel everything with --all");
      if (instrument && opts.all) throw new UserError("give an instrument or --all, not both");
      if (opts.oid !== undefined && !instrument) throw new UserError("--oid needs the order's instrument");
      const oid = opts.oid === undefined ? undefined : Number(opts.oid);
      if (oid !== undefined && !(Number.isSafeInteger(oid) && oid > 0))
        throw new UserError(`--oid must be a positive whole number, got "${opts.oid}"`);
      if (instrument) canonicalInstrument(instrument);
      await withWallet(opts, async ({ client }) => {
        const outcomes = await cancelOrders(client, {
          ...(instrument ? { instrument } : {}),
          ...(oid !== undefined ? { oid } : {}),
        });
        const refused = outcomes.filter((o) => o.error);
        if (opts.json)
          process.stdout.write(
            `${JSON.stringify({ network: client.network, cancels: outcomes }, null, 2)}\n`,
          );
        else {
          for (const o of outcomes)
            process.stdout.write(
              o.error
                ? `Not cancelled: ${o.instrument} oid ${o.oid}: ${o.error}\n`
                : `Cancelled: ${o.instrument} oid ${o.oid}\n`,
            );
          if (outcomes.length === 0) process.stdout.write("No resting orders to cancel.\n");
        }
        if (oid !== undefined && outcomes.length === 0)
          throw new UserError(`no resting order ${oid} on ${instrument}`);
        if (refused.length > 0)
          throw new UserError(`${refused.length} of ${outcomes.length} cancels refused`);
      });
    });

  program
    .command("close")
    .description(
      "Close positions with reduce-only IOC orders (one instrument, or --all); cancels their resting orders first",
    )
    .argument("[instrument]", "close this instrument's position")
    .option("--all", "every open position on every dex")
    .option(
      "--slippage <fraction>",
      "worst price accepted, as a fraction from the mid",
      slippageOption,
      "0.01",
    )
    .option("--keep-orders", "leave resting orders in place")
    .option("--network <network>", NETWORK_HELP)
    .option("-y, --yes", "confirm (required on mainnet)")
    .option("--json", "print JSON for machines")
    .option(DATA_DIR_FLAG, DATA_DIR_HELP)
    .action(
      async (
        instrument: string | undefined,
        opts: NetOpts & { all?: boolean; slippage: string; keepOrders?: boolean; yes?: boolean },
      ) => {
        if (!instrument && !opts.all)
          throw new UserError("name an instrument, or close everything with --all");
        if (instrument && opts.all) throw new UserError("give an instrument or --all, not both");
        if (instrument) canonicalInstrument(instrument);
        requireMainnetConsent(resolveNetwork(opts.network), opts.yes, "hl close");
        await withWallet(opts, async ({ client }) => {
          const only = instrument ? { instrument } : {};
          // Resting orders go first, so none of them reopens what is being closed.
          const cancels = opts.keepOrders ? [] : await cancelOrders(client, only);
          const closes = await closePositions(client, { ...only, slippage: opts.slippage });
          const failed = closes.filter((c) => c.result.status !== "filled");
          if (opts.json) {
            process.stdout.write(
              `${JSON.stringify({ network: client.network, cancels, closes }, null, 2)}\n`,
            );
          } else {
            for (const c of cancels.filter((x) => !x.error))
              process.stdout.write(`Cancelled: ${c.instrument} oid ${c.oid}\n`);
            for (const c of closes) {
              const r = c.result;
              process.stdout.write(
                r.status === "filled"
                  ? `Closed: ${c.instrument} ${c.size} → ${new D(c.size).minus(new D(r.totalSz).times(new D(c.size).isPositive() ? 1 : -1)).toFixed()} @ ${r.avgPx}\n`
                  : `Not closed: ${c.instrument} ${c.size}: ${r.status === "error" ? r.message : "the order rested instead of filling"}\n`,
              );
            }
            if (closes.length === 0) process.stdout.write("No open positions to close.\n");
          }
          if (failed.length > 0)
            throw new UserError(`${failed.length} of ${closes.length} positions not closed`);
        });
      },
    );
}

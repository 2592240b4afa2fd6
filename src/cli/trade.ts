import type { Command } from "commander";
import { resolveNetwork } from "../config/env.ts";
import { D } from "../core/decimal.ts";
import { UserError } from "../core/errors.ts";
import { prepareDexMargin } from "../exchange/dex-margin.ts";
import type { OrderResult, Side, TimeInForce } from "../exchange/index.ts";
import { canonicalInstrument, openClientSession, RoundingError } from "../exchange/index.ts";
import { placeResolved } from "../exchange/order-outcome.ts";
import { HlBackstopPort } from "../guard/hl-backstops.ts";
import { checkTradeStop, placeTradeStop } from "../guard/trade-stop.ts";
import { confirm } from "./confirm.ts";
import { DATA_DIR_FLAG, DATA_DIR_HELP } from "./data-dir.ts";
import { requireMainnetConsent } from "./mainnet.ts";

interface TradeOptions {
  price?: string;
  stop?: string;
  tif?: string;
  network?: string;
  yes?: boolean;
  json?: boolean;
}

const TIFS: readonly TimeInForce[] = ["Gtc", "Ioc", "Alo"];
const DECIMAL = /^\d+(\.\d+)?$|^\.\d+$/;

/** `hl trade INSTRUMENT buy|sell SIZE`: one manual order. */
export function register(program: Command): void {
  program
    .command("trade")
    .description(
      "Place one order: a limit with --price, else a marketable IOC off the book (ask·1.001 / bid·0.999)",
    )
    .argument("<instrument>", "e.g. ETH-PERP, VXX-USDYP, xyz:SPCX")
    .argument("<side>", "buy or sell")
    .argument("<size>", "size in contracts (decimal)")
    .option("--price <price>", "limit price; without it the order is a marketable IOC")
    .option("--tif <tif>", "Gtc | Ioc | Alo (default: Gtc with --price, Ioc without)")
    .option(
      "--stop <price>",
      "also rest a reduce-only stop-market order on the exchange at this trigger (below a buy, above a sell)",
    )
    .option("--network <network>", "mainnet | testnet | paper (default: HL_NETWORK, else paper)")
    .option("-y, --yes", "skip the confirmation prompt (required on mainnet)")
    .option("--json", "print the result as JSON")
    .option(DATA_DIR_FLAG, DATA_DIR_HELP)
    .action(async (instrument: string, sideArg: string, sizeArg: string, opts: TradeOptions) => {
      canonicalInstrument(instrument); // a bad name fails here, before any network call
      const side = parseSide(sideArg);
      const size = parseDecimal(sizeArg, "size");
      const price = opts.price === undefined ? undefined : parseDecimal(opts.price, "price");
      const tif = parseTif(opts.tif, price !== undefined);
      const stop = opts.stop === undefined ? undefined : parseDecimal(opts.stop, "--stop");
      const network = resolveNetwork(opts.network);
      requireMainnetConsent(network, opts.yes, "hl trade");

      const session = await openClientSession({ network });
      try {
        const { client } = session;
        const say = (line: string) => (opts.json ? process.stderr : process.stdout).write(`${line}\n`);
        for (const note of session.notes) say(note);
        if (!client.address) throw new UserError(`no wallet configured for ${network}: set HL_PRIVATE_KEY`);
        const market = await client.market(instrument);
        const limit =
          price ??
          (await client.marketablePrice(market.instrument, side, { reference: "touch", slippage: "0.001" }));
        if (stop !== undefined) checkTradeStop(side, stop, limit);
        const summary = `${side.toUpperCase()} ${size} ${market.instrument} @ ${limit} ${tif} on ${network}${stop !== undefined ? `, stop at ${stop}` : ""}`;
        if (!opts.yes && process.stdin.isTTY && !(await confirm(`${summary}\nConfirm? [y/N] `))) {
          say("Cancelled.");
          return;
        }
        // A HIP-3 dex margins with its own USDC unless dex abstraction is on: as a run does, this
        // turns it on for an account whose mode was never set (said), or refuses with the fix.
        await prepareDexMargin(client, market.dex, say);
        let result: OrderResult;
        try {
          // A lost answer is resolved by the order's cloid: the result is what really happened.
          result = await placeResolved(client, {
            instrument: market.instrument,
            side,
            size,
            price: limit,
            tif,
          });
        } catch (err) {
          if (err instanceof RoundingError) throw new UserError(`${market.instrument}: ${err.message}`);
          throw err;
        }
        if (opts.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
        if (result.status === "error") {
          // With --json the refusal is also the JSON document on stdout, for programs to read.
          throw new UserError(`order refused by the exchange: ${result.message}`);
        }
        if (!opts.json) say(describeResult(result));
        if (stop !== undefined) {
          const stopSize = result.status === "filled" ? result.totalSz : result.order.size;
          const answer = await placeTradeStop(new HlBackstopPort(client), {
            coin: market.coin,
            orderSide: side,
            size: stopSize,
            stopPx: stop,
            orderKey: result.order.cloid ?? String(result.oid),
          });
          if (answer.status === "refused")
            throw new UserError(
              `the position is open WITHOUT its stop: the exchange refused the stop at ${stop} (${answer.message})`,
            );
          say(
            `Stop: ${side === "buy" ? "SELL" : "BUY"} ${stopSize} ${market.instrument} reduce-only when the mark crosses ${stop} (oid ${answer.oid})`,
          );
        }
      } finally {
        await session.close();
      }
    });
}

/** "Filled: BUY 0.5 ETH-PERP @ 2500.1 (oid 123)" / "Resting: …". */
function describeResult(result: Exclude<OrderResult, { status: "error" }>): string {
  const o = result.order;
  if (result.status === "filled") {
    return `Filled: ${o.side.toUpperCase()} ${result.totalSz} ${o.instrument} @ ${result.avgPx} (oid ${result.oid})`;
  }
  return `Resting: ${o.side.toUpperCase()} ${o.size} ${o.instrument} @ ${o.price} ${o.tif} (oid ${result.oid})`;
}

function parseSide(raw: string): Side {
  const side = raw.toLowerCase();
  if (side !== "buy" && side !== "sell") throw new UserError(`side must be buy or sell, got "${raw}"`);
  return side;
}

function parseDecimal(raw: string, what: string): string {
  if (!DECIMAL.test(raw.trim()) || new D(raw.trim()).lte(0))
    throw new UserError(`${what} must be a positive decimal number, got "${raw}"`);
  return new D(raw.trim()).toFixed();
}

function parseTif(raw: string | undefined, hasPrice: boolean): TimeInForce {
  if (raw === undefined) return hasPrice ? "Gtc" : "Ioc";
  const tif = TIFS.find((t) => t.toLowerCase() === raw.toLowerCase());
  if (!tif) throw new UserError(`--tif must be one of ${TIFS.join(", ")}, got "${raw}"`);
  if (!hasPrice && tif !== "Ioc")
    throw new UserError(`--tif ${tif} needs --price (without a price the order is a marketable IOC)`);
  return tif;
}

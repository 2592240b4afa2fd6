import { resolve } from "node:path";
import type { Command } from "commander";
import { dataDir, resolveNetwork } from "../config/env.ts";
import { resolveEndpoint } from "../exchange/config.ts";
import { HlStream } from "../exchange/ws.ts";
import { candleInterval, instant, positiveInt } from "../market/cli-args.ts";
import { fetchMarketHistory } from "../market/fetch.ts";
import { openHistorySource } from "../market/hl-source.ts";
import { listHoldings, renderHoldings } from "../market/inventory.ts";
import { startRecording } from "../market/record-feed.ts";
import { MarketRecorder } from "../market/recorder.ts";

interface FetchCliOptions {
  interval: string;
  from: string;
  to?: string;
  network?: string;
  dataDir?: string;
  json?: boolean;
}

const NETWORK_HELP = "mainnet | testnet | paper (default: HL_NETWORK, else paper)";
const DATA_DIR_HELP = "data directory (default DATA_DIR, else ./data)";

function rootOf(dir: string | undefined): string {
  return dir === undefined ? dataDir() : resolve(dir);
}

/** `hl data`: market history into DATA_DIR/market (docs/market-data.md). */
export function register(program: Command): void {
  const data = program
    .command("data")
    .description("Market data: fetch history, record the live feed, list what is held");

  data
    .command("fetch")
    .argument("<coins...>", "coins, e.g. ETH BTC yex:VXX xyz:SPCX")
    .description(
      "Fetch candles (candleSnapshot) and funding (fundingHistory) into the store; resumes: only what is missing is asked for",
    )
    .requiredOption("--from <date>", "start, UTC: 2026-01-31, an ISO time or epoch ms")
    .option("--to <date>", "end (exclusive), UTC (default: now)")
    .option("--interval <i>", "candle interval: 1m | 5m | 1h", "1m")
    .option("--network <network>", NETWORK_HELP)
    .option("--data-dir <dir>", DATA_DIR_HELP)
    .option("--json", "print the summary as JSON")
    .action(async (coins: string[], opts: FetchCliOptions) => {
      const network = resolveNetwork(opts.network);
      const root = rootOf(opts.dataDir);
      const interval = candleInterval(opts.interval);
      const fromMs = instant("--from", opts.from);
      const toMs = opts.to === undefined ? Date.now() : instant("--to", opts.to);
      const result = await fetchMarketHistory(openHistorySource(network), {
        root,
        network,
        coins,
        interval,
        fromMs,
        toMs,
        onPage: opts.json
          ? undefined
          : (p) =>
              process.stderr.write(
                `${p.coin} ${p.dataset} ${new Date(p.fromMs).toISOString()} … ${new Date(p.toMs).toISOString()}: ${p.rows} rows\n`,
              ),
      });
      if (opts.json)
        process.stdout.write(`${JSON.stringify({ network, interval, fromMs, toMs, ...result })}\n`);
      else
        for (const c of result.coins)
          process.stdout.write(
            `${c.coin}: ${c.candles.stored} ${interval} candles in ${c.candles.requests} requests, ${c.funding.stored} funding records in ${c.funding.requests} requests\n`,
          );
    });

  data
    .command("record")
    .argument("<coins...>", "coins, e.g. ETH BTC yex:VXX")
    .description(
      "Record trades, l2Book snapshots, activeAssetCtx and settled funding from the WebSocket into daily files until stopped (Ctrl-C); at most the last second is lost if killed",
    )
    .option("--book-depth <n>", "book levels kept per side", "20")
    .option("--network <network>", NETWORK_HELP)
    .option("--data-dir <dir>", DATA_DIR_HELP)
    .action(async (coins: string[], opts: { bookDepth: string; network?: string; dataDir?: string }) => {
      const network = resolveNetwork(opts.network);
      const root = rootOf(opts.dataDir);
      const endpoint = resolveEndpoint(network);
      const recorder = new MarketRecorder({
        root,
        network,
        coins,
        bookDepth: positiveInt("--book-depth", opts.bookDepth, 100),
        funding: openHistorySource(network),
      });
      await recorder.recover();
      const stream = new HlStream({ url: endpoint.wsUrl, isTestnet: endpoint.isTestnet });
      const recording = await startRecording(stream, recorder, coins, {
        onError: (err) =>
          process.stderr.write(`record: ${err instanceof Error ? err.message : String(err)}\n`),
      });
      process.stdout.write(
        `recording ${coins.join(", ")} from ${endpoint.wsUrl} into ${root}/market/${network} (Ctrl-C to stop)\n`,
      );
      const signal = await new Promise<NodeJS.Signals>((done) => {
        process.once("SIGINT", done);
        process.once("SIGTERM", done);
      });
      process.once(signal, () => process.exit(130));
      await recording.stop();
      await stream.close();
      const c = recorder.counts;
      process.stdout.write(
        `stopped: ${c.trades} trades, ${c.l2book} book snapshots, ${c.asset_ctx} asset contexts, ${c.funding} funding records\n`,
      );
    });

  data
    .command("ls")
    .description("List the market data held: network, dataset, coin, first and last day, rows")
    .option("--data-dir <dir>", DATA_DIR_HELP)
    .option("--json", "print JSON")
    .action(async (opts: { dataDir?: string; json?: boolean }) => {
      const holdings = await listHoldings(rootOf(opts.dataDir));
      process.stdout.write(opts.json ? `${JSON.stringify(holdings, null, 2)}\n` : renderHoldings(holdings));
    });
}

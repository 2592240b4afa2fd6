import type { Command } from "commander";
import { UserError } from "../core/errors.ts";
import { processContext } from "../services/host/types.ts";
import {
  hlAccountSource,
  LEADERBOARD_NETWORKS,
  type LeaderboardNetwork,
  NETWORK_CHOICES,
} from "../services/leaderboard/account-source.ts";
import type { BoardEntry } from "../services/leaderboard/board.ts";
import { leaderboardConfig } from "../services/leaderboard/config.ts";
import { LocalResultsStore } from "../services/leaderboard/local-results-store.ts";
import { openAgentStore } from "../services/leaderboard/open-store.ts";
import { Refresher } from "../services/leaderboard/refresher.ts";
import {
  parseRegistration,
  RegistrationError,
  register as registerAgent,
} from "../services/leaderboard/registration.ts";
import { serveLeaderboard } from "../services/leaderboard/serve.ts";
import { startRefreshWorker } from "../services/leaderboard/worker-main.ts";
import { serveUntilStopped } from "./signals.ts";

function networkOption(raw: string | undefined): LeaderboardNetwork {
  const n = raw ?? "testnet";
  if (!(LEADERBOARD_NETWORKS as readonly string[]).includes(n)) {
    throw new UserError(`--network must be ${NETWORK_CHOICES}, got "${n}"`);
  }
  return n as LeaderboardNetwork;
}

const money = (v: number) => v.toFixed(2);

function table(entries: BoardEntry[]): string {
  const head = ["#", "name", "address", "pnl", "pnl_adjusted", "account_value", "positions"];
  const rows = entries.map((e) => [
    String(e.rank),
    `${e.display_name || "-"}${e.stale ? " (stale)" : ""}`,
    e.address,
    money(e.pnl),
    money(e.pnl_adjusted),
    money(e.account_value),
    String(e.positions_count),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const numeric = new Set([0, 3, 4, 5, 6]);
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (numeric.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  return [line(head), ...rows.map(line)].join("\n");
}

/** `hl leaderboard serve | register | list`: the agent leaderboard (service B) and its CLI. */
export function register(program: Command): void {
  const lb = program
    .command("leaderboard")
    .description("Agent leaderboard: PnL since registration, per network");

  lb.command("serve")
    .description("Serve the leaderboard API and page (LEADERBOARD_PORT, default 8090)")
    .option("--port <port>", "port to listen on (default LEADERBOARD_PORT, else 8090)")
    .action(async (opts: { port?: string }) => {
      await serveUntilStopped(() => serveLeaderboard(opts, processContext("leaderboard")));
    });

  lb.command("worker")
    .description(
      "Refresh agents from the Postgres queue (DATABASE_URL) with this worker's own weight budget; run one per source address",
    )
    .option("--source-address <ip>", "local address to reach the exchange from (its own per-IP limit)")
    .action(async (opts: { sourceAddress?: string }) => {
      // A refresh under way gives its reads up at the stop, so the worker closes without waiting for weight.
      await serveUntilStopped(async () => {
        const running = await startRefreshWorker(process.env, opts.sourceAddress);
        process.stdout.write(
          `leaderboard worker ${running.id} refreshing from the queue${opts.sourceAddress ? ` via ${opts.sourceAddress}` : ""}\n`,
        );
        return running;
      });
    });

  lb.command("register <address>")
    .description("Register an address: its account value now becomes its PnL baseline")
    .option("--name <name>", "display name (at most 32 characters)", "")
    .option("--network <network>", "testnet | mainnet | paper", "testnet")
    .option("--json", "print the registration response as JSON")
    .action(async (address: string, opts: { name: string; network: string; json?: boolean }) => {
      const config = leaderboardConfig();
      let request: ReturnType<typeof parseRegistration>;
      try {
        request = parseRegistration({
          address,
          network: networkOption(opts.network),
          display_name: opts.name,
        });
      } catch (err) {
        throw new UserError(err instanceof Error ? err.message : String(err));
      }
      const accounts = await hlAccountSource(config.apiUrls, config.agentTimeoutMs);
      const store = openAgentStore(config);
      try {
        const result = await registerAgent(request, { store, source: accounts.source, now: Date.now });
        if (opts.json) process.stdout.write(`${JSON.stringify(result)}\n`);
        else
          process.stdout.write(
            `${result.new ? "registered" : "already registered"} ${result.address} on ${result.network}` +
              ` (initial account value ${money(result.initial_account_value)})\n`,
          );
      } catch (err) {
        if (err instanceof RegistrationError) throw new UserError(err.message);
        throw err;
      } finally {
        await store.close();
        await accounts.close();
      }
    });

  lb.command("list")
    .description("Print the ranking of a network (queries the exchange first unless --cached)")
    .option("--network <network>", "testnet | mainnet | paper", "testnet")
    .option("--cached", "print the last known values without querying the exchange")
    .option("--json", "print the leaderboard response as JSON")
    .action(async (opts: { network: string; cached?: boolean; json?: boolean }) => {
      const network = networkOption(opts.network);
      const config = leaderboardConfig();
      // On the replicas' shared Postgres only the elected writer records results: show fresh values
      // here without writing them.
      const shared = openAgentStore(config);
      const store = config.databaseUrl ? new LocalResultsStore(shared) : shared;
      const accounts = opts.cached ? undefined : await hlAccountSource(config.apiUrls, config.agentTimeoutMs);
      try {
        const refresher = new Refresher({
          store,
          source:
            accounts?.source ??
            (() => {
              throw new UserError("no exchange in --cached mode");
            }),
          networks: [network],
          intervalMs: config.refreshIntervalMs,
          concurrency: config.concurrency,
          agentTimeoutMs: config.agentTimeoutMs,
          staggerMs: 0,
        });
        if (accounts) await refresher.cycle();
        const board = await refresher.board(network);
        if (opts.json) process.stdout.write(`${board.body.toString()}\n`);
        else if (board.total === 0) process.stdout.write(`no agents registered on ${network}\n`);
        else process.stdout.write(`${table(board.entries)}\n`);
      } finally {
        await store.close();
        await accounts?.close();
      }
    });
}

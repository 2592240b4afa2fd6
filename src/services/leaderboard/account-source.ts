import { D } from "../../core/decimal.ts";
import type { Address } from "../../exchange/index.ts";
import {
  HlClient,
  type HlInfo,
  paginateByTime,
  summarizeAccount,
  type WeightBudget,
} from "../../exchange/index.ts";
import type { LedgerUpdate } from "./ledger.ts";
import type { DexReading } from "./tracking.ts";

/** `paper`: agents trading on a sim world, ranked apart from real testnet and mainnet agents. */
export const LEADERBOARD_NETWORKS = ["testnet", "mainnet", "paper"] as const;
export const NETWORK_CHOICES = '"testnet", "mainnet" or "paper"';
export type LeaderboardNetwork = (typeof LEADERBOARD_NETWORKS)[number];

export interface AccountReading {
  /** Σ account value over the dexes read (decimal string). */
  accountValue: string;
  positionsCount: number;
  /** Each dex read, main dex first. */
  perDex: DexReading[];
  /** The exchange's clock when it answered (ms), where it says. */
  timeMs?: number;
}

/** What the leaderboard needs from one network's exchange. */
export interface NetworkAccounts {
  /** HIP-3 dex names (the main dex is implied); `perpDexs`, weight 20. */
  hip3Dexes(): Promise<string[]>;
  /** The main dex and the HIP-3 dexes given: one `clearinghouseState` (weight 2) each. */
  account(user: Address, hip3Dexes: readonly string[]): Promise<AccountReading>;
  /** Non-funding ledger entries from `startTime` (exchange clock, ms) on. */
  ledger(user: Address, startTime: number): Promise<LedgerUpdate[]>;
  close(): Promise<void>;
}

export type AccountSource = (network: LeaderboardNetwork) => NetworkAccounts;

/**
 * A page size no larger than the exchange's cap for ledger updates: a page this full may have more
 * behind it. (A smaller value only costs one extra request for accounts with many entries.)
 */
const LEDGER_PAGE = 100;

/** NetworkAccounts over the shared exchange client (its weight budget paces every request). */
export function hlAccounts(client: HlInfo & { close(): Promise<void> }): NetworkAccounts {
  return {
    hip3Dexes: () => client.hip3Dexes(),
    async account(user, hip3Dexes) {
      const dexes = ["", ...hip3Dexes];
      const perDex = await Promise.all(
        dexes.map(async (dex) => ({ dex, state: await client.clearinghouseState({ user, dex }) })),
      );
      const summary = summarizeAccount(user, perDex);
      return {
        accountValue: summary.accountValue,
        positionsCount: summary.positions.length,
        timeMs: Math.max(...perDex.map(({ state }) => state.time)),
        perDex: perDex.map(({ dex, state }) => ({
          dex,
          accountValue: state.marginSummary.accountValue,
          positions: state.assetPositions
            .map(({ position: p }) => ({
              coin: p.coin,
              szi: p.szi,
              entryPx: p.entryPx,
              unrealizedPnl: p.unrealizedPnl,
              fundingSinceOpen: p.cumFunding.sinceOpen,
            }))
            .filter((p) => !new D(p.szi).isZero()),
        })),
      };
    },
    ledger(user, startTime) {
      // Pages are capped by the exchange: keep asking from the last entry's time while pages are full.
      return paginateByTime(
        async (from) =>
          (await client.userNonFundingLedgerUpdates({ user, startTime: from })) as LedgerUpdate[],
        startTime,
        LEDGER_PAGE,
        (u) => u.time,
        (u) => `${u.hash}:${u.time}:${u.delta.type}`,
      );
    },
    close: () => client.close(),
  };
}

/** One read-only client per network, pointed at `urls[network]`. */
export async function hlAccountSource(
  urls: Record<LeaderboardNetwork, string>,
  timeoutMs: number,
  opts: { env?: Record<string, string | undefined>; budget?: WeightBudget; localAddress?: string } = {},
): Promise<{
  source: AccountSource;
  close(): Promise<void>;
}> {
  const clients = new Map<LeaderboardNetwork, NetworkAccounts>();
  for (const network of LEADERBOARD_NETWORKS) {
    // Read-only: no signer, whatever key the environment holds.
    const client = await HlClient.create({
      network,
      apiUrl: urls[network],
      paperWallet: false,
      timeoutMs,
      retry: { attempts: 2 },
      env: { ...(opts.env ?? process.env), HL_PRIVATE_KEY: undefined },
      budget: opts.budget,
      localAddress: opts.localAddress,
    });
    clients.set(network, hlAccounts(client));
  }
  return {
    source: (network) => clients.get(network)!,
    async close() {
      await Promise.all([...clients.values()].map((c) => c.close()));
    },
  };
}

import { join } from "node:path";
import { num } from "../../core/decimal.ts";
import type { Address } from "../../exchange/index.ts";
import { readJson } from "../../store/atomic.ts";
import type { AccountReading, NetworkAccounts } from "../leaderboard/account-source.ts";
import { accountPnl, cents } from "../leaderboard/pnl.ts";
import type { ExchangeClock } from "./exchange-clock.ts";

/** Where `hl up` keeps the leaderboard's answer to this agent's registration (in its DATA_DIR). */
export const REGISTRATION_FILE = "leaderboard.json";

/** The leaderboard's baseline for this agent, as its registration answered. */
export interface Registration {
  network: string;
  address: string;
  /** Decimal string: the account value the leaderboard took as the start. */
  initial_account_value: string;
}

/** The dashboard's account PnL: the leaderboard's figure, from one exchange reading. */
interface AccountPnl {
  account_pnl: number;
  account_value: number;
  initial_account_value: number;
  /** The exchange's clock when the account was read (sim time on a fast sim world). */
  read_at_ms: number;
}

export function readRegistration(dataDir: string): Registration | undefined {
  const r = readJson<Partial<Registration>>(join(dataDir, REGISTRATION_FILE));
  if (r.kind !== "ok") return undefined;
  const { network, address, initial_account_value } = r.value;
  if (typeof network !== "string" || typeof address !== "string" || typeof initial_account_value !== "string")
    return undefined;
  return { network, address, initial_account_value };
}

/** The account PnL of one reading against the registration baseline (the leaderboard's formula). Pure. */
export function accountPnlOf(reading: AccountReading, reg: Registration, fallbackMs: number): AccountPnl {
  return {
    account_pnl: cents(accountPnl(reading.accountValue, reg.initial_account_value)),
    account_value: num(reading.accountValue),
    initial_account_value: num(reg.initial_account_value),
    read_at_ms: reading.timeMs ?? fallbackMs,
  };
}

/**
 * The account is read this often (one `clearinghouseState`, weight 2, per dex it may hold value on):
 * every 2 s cost 180 weight a minute with three dexes, 15 % of the IP's budget for one figure.
 */
const ACCOUNT_READ_EVERY_MS = 15_000;

/** HIP-3 dexes are listed again this often (a weight-20 request; new dexes are rare). */
const DEX_LIST_EVERY_MS = 60_000;

/**
 * Reads the agent's account on the exchange every `intervalMs` once a registration file exists, and
 * keeps the last account PnL. Without a registration (an agent not on a leaderboard) it stays null.
 */
export class AccountPnlWatch {
  private last: AccountPnl | null = null;
  private accounts: NetworkAccounts | undefined;
  private dexes: { list: string[]; atMs: number } | undefined;
  private busy = false;
  private closed = false;
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly clock: ExchangeClock | undefined;

  constructor(
    private readonly dataDir: string,
    private readonly connect: () => Promise<NetworkAccounts>,
    opts: { intervalMs?: number; clock?: ExchangeClock } = {},
  ) {
    this.clock = opts.clock;
    if (opts.intervalMs !== 0) {
      this.timer = setInterval(() => void this.sample(), opts.intervalMs ?? ACCOUNT_READ_EVERY_MS);
      this.timer.unref();
    }
  }

  /** One reading; errors (exchange slow or down) keep the last one. */
  async sample(): Promise<void> {
    if (this.busy || this.closed) return;
    const reg = readRegistration(this.dataDir);
    if (!reg) return;
    this.busy = true;
    try {
      this.accounts ??= await this.connect();
      const now = Date.now();
      if (!this.dexes || now - this.dexes.atMs >= DEX_LIST_EVERY_MS)
        this.dexes = { list: await this.accounts.hip3Dexes(), atMs: now };
      const reading = await this.accounts.account(reg.address as Address, this.dexes.list);
      if (this.closed) return;
      if (reading.timeMs !== undefined) this.clock?.observe(reading.timeMs, Date.now());
      this.last = accountPnlOf(reading, reg, Date.now());
    } catch {
      // the next interval tries again
    } finally {
      this.busy = false;
    }
  }

  latest(): AccountPnl | null {
    return this.last;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    await this.accounts?.close();
  }
}

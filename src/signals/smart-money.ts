/**
 * Smart-money tracker: watches whale wallets' positions and reports new, flipped or grown ones.
 * Pure state machine: `observe(state, polls, marks)` → {state, signals}.
 *
 * The first poll of each address only seeds its snapshot (positions already open when the agent
 * starts are not "new" — the predecessor emitted them all as fresh entries), and a failed poll keeps
 * the previous snapshot instead of forgetting it (which made the next poll re-emit everything).
 */

type Side = "LONG" | "SHORT";

export interface WalletPosition {
  coin: string;
  /** signed size in coins */
  szi: number;
  entry_px: number;
}

export interface SmartMoneyConfig {
  min_position_usd: number;
  conviction_threshold: number;
}

export interface SmartMoneySignal {
  asset: string;
  signal_type: "SMART_MONEY" | "HIGH_CONVICTION";
  direction: Side;
  confidence: number;
  source_addresses: string[];
  notional_usd: number;
}

/** address → (coin → {direction, size_usd}) from the last successful poll */
export type SmartMoneyState = Record<string, Record<string, { direction: Side; size_usd: number }>>;

/** `null` = the poll of that address failed this time. */
type PollResult = Record<string, WalletPosition[] | null>;

export function observeSmartMoney(
  cfg: SmartMoneyConfig,
  state: SmartMoneyState,
  polls: PollResult,
  marks: Readonly<Record<string, number>>,
): { state: SmartMoneyState; signals: SmartMoneySignal[] } {
  const next: SmartMoneyState = { ...state };
  const changes: { address: string; coin: string; direction: Side; size_usd: number }[] = [];
  for (const [address, positions] of Object.entries(polls)) {
    if (positions === null) continue;
    const prev = state[address];
    const snap: SmartMoneyState[string] = {};
    for (const p of positions) {
      if (p.szi === 0) continue;
      const px = marks[p.coin] ?? p.entry_px;
      const size_usd = Math.abs(p.szi) * px;
      const direction: Side = p.szi > 0 ? "LONG" : "SHORT";
      snap[p.coin] = { direction, size_usd };
      if (!prev || size_usd < cfg.min_position_usd) continue;
      const before = prev[p.coin];
      const changed = !before || before.direction !== direction || size_usd > 1.2 * before.size_usd;
      if (changed) changes.push({ address, coin: p.coin, direction, size_usd });
    }
    next[address] = snap;
  }
  const byCoin = new Map<string, typeof changes>();
  for (const c of changes) byCoin.set(c.coin, [...(byCoin.get(c.coin) ?? []), c]);
  const signals: SmartMoneySignal[] = [];
  for (const [coin, list] of byCoin) {
    const longs = list.filter((c) => c.direction === "LONG");
    const shorts = list.filter((c) => c.direction === "SHORT");
    const side = longs.length >= shorts.length ? longs : shorts;
    const notional = side.reduce((s, c) => s + c.size_usd, 0);
    if (notional < cfg.min_position_usd) continue;
    const wallets = side.length;
    const confidence = Math.min(60 + 10 * wallets + (notional / 100_000) * 10, 100);
    signals.push({
      asset: coin,
      signal_type: wallets >= cfg.conviction_threshold ? "HIGH_CONVICTION" : "SMART_MONEY",
      direction: side[0]!.direction,
      confidence: Math.round(confidence * 10) / 10,
      source_addresses: side.map((c) => c.address),
      notional_usd: Math.round(notional * 100) / 100,
    });
  }
  return { state: next, signals };
}

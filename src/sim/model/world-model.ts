import type { HouseQuote } from "./house-quotes.ts";
import type { TakerIntent } from "./market-model.ts";
import type { MarketParams } from "./market-params.ts";
import type { PriceState, Scenario } from "./price-process.ts";

/**
 * What the scheduler, the house and the world's admin surface need from a market model: the seeded
 * MarketModel invents prices, the ReplayModel plays recorded ones back. Both step on sim time only.
 */
export interface WorldModel {
  /** Sim time the model has reached. */
  readonly time: number;
  /** Catch up to `nowMs`; returns how many changes were applied (0: nothing to requote). */
  advanceTo(nowMs: number): number;
  price(coin: string): PriceState | undefined;
  params(coin: string): MarketParams | undefined;
  /** Taker orders decided since the last call (oldest first). */
  drainTakers(): TakerIntent[];
  /** Every market's process state (what a restart continues from). */
  states(): Record<string, PriceState>;
  setPrice(coin: string, px: number): void;
  addScenario(s: Scenario): void;
  /** A recorded book the house posts as it is, instead of its own ladder (undefined: build the ladder). */
  recordedBook?(coin: string): readonly HouseQuote[] | undefined;
}

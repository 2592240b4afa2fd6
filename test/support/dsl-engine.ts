import { join } from "node:path";
import { z } from "zod";
import { Engine, type EngineOptions } from "../../src/engine/engine.ts";
import type { PaperGateway } from "../../src/engine/paper-gateway.ts";
import type { MarketDataPort } from "../../src/engine/ports.ts";
import { DEFAULT_RISK_LIMITS } from "../../src/engine/risk.ts";
import type { RunStopConfig } from "../../src/guard/position-stop.ts";
import {
  type AnyStrategy,
  type DecisionContext,
  defineStrategy,
  type OrderIntent,
} from "../../src/strategies/sdk.ts";

/** A stateless signal strategy with no params whose every decision is `orders(context)`. */
export function ordersStrategy(id: string, orders: (c: DecisionContext) => OrderIntent[]): AnyStrategy {
  return defineStrategy({
    id,
    description: "test",
    type: "signal",
    params: z.object({}),
    init: () => ({}),
    decide: (c, _p, state: object) => ({ orders: orders(c), state }),
  }) as unknown as AnyStrategy;
}

/**
 * A dry run of the engine on ETH-PERP against `paper` watching `market`, ticking without waits, with
 * the DSL stop on its position (guard files under <dir>/cli/dsl-stop); `extra` adds or overrides options.
 */
export function dslDryRunEngine(
  o: {
    strategy: AnyStrategy;
    paper: PaperGateway;
    market: MarketDataPort;
    dir: string;
    maxTicks: number;
    dsl: RunStopConfig;
  },
  extra: Partial<EngineOptions> = {},
): Engine {
  return new Engine({
    strategy: o.strategy,
    params: {},
    instrument: "ETH-PERP",
    market: o.paper.watch(o.market),
    gateway: o.paper,
    dataDir: join(o.dir, "cli"),
    tickMs: 0,
    maxTicks: o.maxTicks,
    resume: true,
    limits: DEFAULT_RISK_LIMITS,
    requoteBps: 2,
    mode: "dry-run",
    network: "test",
    log: () => undefined,
    dslStop: { config: o.dsl, guardDir: join(o.dir, "cli", "dsl-stop") },
    ...extra,
  });
}

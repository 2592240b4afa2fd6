import type { AddressInfo, Socket } from "node:net";
import { SIM_STARTING_BALANCE } from "../config/defaults.ts";
import type { AuthDeps } from "./auth/authenticate.ts";
import { NonceBook } from "./auth/nonce-book.ts";
import type { SigningChain } from "./auth/recover-signer.ts";
import { backfill } from "./model/backfill.ts";
import { createSimClock, type SimClock } from "./model/clock.ts";
import {
  HOUSE_ADDRESSES,
  HOUSE_MAKER,
  HOUSE_TAKER,
  HouseDriver,
  type HouseMarket,
} from "./model/house-driver.ts";
import { MarketModel } from "./model/market-model.ts";
import { marketParams } from "./model/market-params.ts";
import type { PriceState } from "./model/price-process.ts";
import { SimScheduler } from "./model/scheduler.ts";
import { WorldStore } from "./persist/world-store.ts";
import { yieldPools } from "./rates/yield-pools.ts";
import type { SimControl } from "./server/admin.ts";
import { encodeBuilderFillsFile } from "./server/builder-fills-file.ts";
import { SimFaults } from "./server/faults.ts";
import { createSimHttpServer } from "./server/http.ts";
import { InfoCache } from "./server/info-cache.ts";
import { IpWeightLimiter } from "./server/ip-weight.ts";
import { UsdypFaucet } from "./server/usdyp-claim.ts";
import { SimWebSocket } from "./server/ws.ts";
import { createVenue, DEFAULT_MARKETS, type SimVenue } from "./venue/index.ts";
import { DEFAULT_IMPACT_NOTIONAL_USD } from "./venue/markets.ts";
import type { Address } from "./venue.ts";

export type { SimClock } from "./model/clock.ts";
export type { SimVenue } from "./venue/index.ts";

export interface SimWorldOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  host?: string;
  /** Same seed ⇒ same market. Default 1. */
  seed?: number;
  /** Sim clock multiplier (default 1). */
  speed?: number;
  /** USDC credited to each new address (default SIM_STARTING_BALANCE). */
  startingBalance?: string;
  /** House market makers and taker flow (default true). Without them books start empty. */
  houseMakers?: boolean;
  /** Which signing flavours are accepted (default both mainnet "a" and testnet "b"). */
  chains?: SigningChain[];
  /** Sim time at start (default: wall time now). */
  startMs?: number;
  /**
   * Directory holding the world's state (sim.db): when set, the world restores its clock, prices and
   * accounts from there on start and saves them every few seconds and on close.
   */
  stateDir?: string;
  /** Days of market history backfilled before start (default 30; 0 = a market with no past). */
  historyDays?: number;
  /** Coins forced to trend from the start (e.g. a demo "mover"): drift per hour for a while. */
  movers?: { coin: string; driftPerHour: number; durationMs: number }[];
  /**
   * Enforce Hyperliquid's per-IP REST limit: this much request weight per minute per client source
   * address (the exchange's is 1200), 429 beyond it. Default off: tests and `hl up` on this machine
   * share one address.
   */
  ipWeightLimit?: number;
}

export interface SimWorld {
  url: string;
  wsUrl: string;
  port: number;
  seed: number;
  venue: SimVenue;
  clock: SimClock;
  /** Skip sim time forward (what POST /sim/advance does). */
  advance(ms: number): void;
  /** Move a coin's price now; house makers requote around it (what POST /sim/price does). */
  setPrice(coin: string, px: string): void;
  /** Force a drift on a coin for a while (what POST /sim/scenario does). */
  scenario(s: { coin: string; driftPerHour: number; durationMs: number }): void;
  /** Injected network faults (what POST /sim/fault does). */
  faults: SimFaults;
  close(): Promise<void>;
}

const DAY_MS = 86_400_000;
/** A persisted world saves its state this often (wall ms), besides on close. */
const SAVE_EVERY_MS = 5_000;
/** A fresh world opens with this many days of past. */
const HISTORY_DAYS = 30;

/** Start a complete sim world: venue, market model, house makers, HTTP + WebSocket server. */
export async function startSimWorld(opts: SimWorldOptions = {}): Promise<SimWorld> {
  const store = opts.stateDir === undefined ? undefined : new WorldStore(opts.stateDir);
  const saved = store?.load();
  // A restored world keeps its own seed and resumes at the sim time it was saved at.
  const seed = saved?.seed ?? opts.seed ?? 1;
  const host = opts.host ?? "127.0.0.1";
  const clock = createSimClock({ speed: opts.speed ?? 1, startMs: saved?.simTime ?? opts.startMs });
  const venue = createVenue({
    seed,
    clock: clock.now,
    startingBalance: opts.startingBalance ?? SIM_STARTING_BALANCE,
    markets: DEFAULT_MARKETS,
  });

  const specs = new Map(DEFAULT_MARKETS.map((m) => [m.name, m]));
  const houseMarkets: HouseMarket[] = venue.markets().map((m) => ({
    coin: m.coin,
    asset: m.asset,
    szDecimals: m.szDecimals,
    maxLeverage: m.maxLeverage,
    onlyIsolated: m.onlyIsolated,
    impactNotionalUsd: specs.get(m.coin)?.impactNotionalUsd ?? DEFAULT_IMPACT_NOTIONAL_USD,
    premiumStyle: m.dex === "" ? "main" : "hip3",
  }));
  const modelMarkets = houseMarkets.map((m) => ({
    coin: m.coin,
    szDecimals: m.szDecimals,
    startPx: saved?.model[m.coin]?.px ?? Number(specs.get(m.coin)?.startPx ?? "1"),
    impactNotionalUsd: m.impactNotionalUsd,
  }));
  const initial = new Map<string, PriceState>();
  const historyDays = opts.historyDays ?? HISTORY_DAYS;
  if (historyDays > 0) {
    const past = backfill(
      modelMarkets.map((m) => ({
        coin: m.coin,
        szDecimals: m.szDecimals,
        endPx: m.startPx,
        params: marketParams(m.coin, seed),
      })),
      { seed, endMs: clock.now(), days: historyDays },
    );
    for (const h of past) {
      venue.loadPast(h.coin, { ...h, candles: h }, { buyer: HOUSE_TAKER, seller: HOUSE_MAKER });
      initial.set(h.coin, h.end);
    }
  }
  // A restored market continues from its saved state; the past above was regenerated to end there.
  for (const [coin, state] of Object.entries(saved?.model ?? {}))
    if (specs.has(coin)) initial.set(coin, state);
  if (saved) venue.restore(saved.venue);
  const model = new MarketModel(modelMarkets, { seed, startMs: clock.now(), initial });

  for (const m of opts.movers ?? []) {
    model.addScenario({ coin: m.coin, driftPerHour: m.driftPerHour, untilMs: clock.now() + m.durationMs });
  }

  // Addresses the world has seen (looked up, funded, or house): only these, and their agents, may sign.
  const known = new Set<string>([...HOUSE_ADDRESSES, ...(saved?.venue.accounts.map((a) => a.addr) ?? [])]);
  const seeUser = (user: Address) => {
    known.add(user.toLowerCase());
  };
  const driver = new HouseDriver(venue, model, houseMarkets, {
    quoting: opts.houseMakers ?? true,
    startMs: clock.now(),
    funded: saved !== undefined,
  });
  driver.start();
  const scheduler = new SimScheduler(clock, model, driver, (now) => venue.advance(now));
  scheduler.start();
  const save = () =>
    store?.save({
      simTime: clock.now(),
      seed,
      model: model.states(),
      venue: venue.snapshot(HOUSE_ADDRESSES),
    });
  const saver = store ? setInterval(save, SAVE_EVERY_MS) : undefined;
  saver?.unref();

  const auth: AuthDeps = {
    now: clock.now,
    wallNow: Date.now,
    nonces: new NonceBook(),
    chains: opts.chains ?? ["Mainnet", "Testnet"],
    masterOf: (a) => venue.masterOf(a) ?? (known.has(a) ? a : undefined),
  };

  const control: SimControl = {
    deposit(user, amount) {
      seeUser(user);
      venue.deposit(user, amount);
      return { status: "ok" };
    },
    withdraw(user, amount) {
      seeUser(user);
      venue.withdraw(user, amount);
      return { status: "ok" };
    },
    setPrice(coin, px) {
      model.setPrice(coin, Number(px));
      driver.sync();
      return { status: "ok", coin, px: model.price(coin)?.px };
    },
    advance(ms) {
      scheduler.advance(ms);
      return { status: "ok", time: clock.now() };
    },
    scenario(s) {
      model.addScenario({ coin: s.coin, driftPerHour: s.driftPerHour, untilMs: clock.now() + s.durationMs });
      return { status: "ok" };
    },
    health() {
      return { status: "ok", time: clock.now() };
    },
    state() {
      return {
        time: clock.now(),
        seed,
        speed: clock.speed,
        markets: houseMarkets.map((m) => {
          const p = model.price(m.coin);
          return { coin: m.coin, asset: m.asset, px: p?.px, regime: p?.regime, premium: p?.premium };
        }),
        house: HOUSE_ADDRESSES,
        feesCollected: venue.feesCollected(),
      };
    },
  };

  const infoCache = new InfoCache(venue);
  const faults = new SimFaults();
  const server = createSimHttpServer({
    faults,
    ipWeight: opts.ipWeightLimit === undefined ? undefined : new IpWeightLimiter(opts.ipWeightLimit),
    venue,
    infoCache,
    auth,
    control,
    seeUser,
    yieldPools: () => yieldPools(seed, clock.now()),
    usdypFaucet: new UsdypFaucet({
      isKnown: (user) => known.has(user),
      credit: (user, amount) => control.deposit(user, amount),
    }),
    builderFillsFile(_network, builder, day) {
      // A day's file exists once that UTC day has closed on the sim clock, and only with fills.
      const dayStart = Date.UTC(
        Number(day.slice(0, 4)),
        Number(day.slice(4, 6)) - 1,
        Number(day.slice(6, 8)),
      );
      if (!Number.isFinite(dayStart) || dayStart + DAY_MS > clock.now()) return undefined;
      const rows = venue.builderFills(builder, day);
      return rows.length > 0 ? encodeBuilderFillsFile(rows) : undefined;
    },
  });
  faults.attach(server);
  const ws = new SimWebSocket(server, { venue, auth, seeUser });
  // Every socket, upgraded WebSockets included, so close() never waits on a lingering client.
  const sockets = new Set<Socket>();
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });

  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(opts.port ?? 0, host, () => {
        server.off("error", reject);
        resolve();
      });
    });
  } catch (err) {
    scheduler.stop();
    if (saver) clearInterval(saver);
    store?.close();
    ws.close();
    throw err;
  }
  const port = (server.address() as AddressInfo).port;
  const hostInUrl = host.includes(":") ? `[${host}]` : host;

  let closed: Promise<void> | undefined;
  return {
    url: `http://${hostInUrl}:${port}`,
    wsUrl: `ws://${hostInUrl}:${port}/ws`,
    port,
    seed,
    venue,
    clock,
    advance: (ms) => scheduler.advance(ms),
    setPrice: (coin, px) => {
      control.setPrice(coin, px);
    },
    scenario: (sc) => {
      control.scenario(sc);
    },
    faults,
    close() {
      closed ??= new Promise<void>((resolve) => {
        scheduler.stop();
        if (saver) clearInterval(saver);
        save();
        store?.close();
        ws.close();
        infoCache.close();
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
      return closed;
    },
  };
}

import type { AddressInfo, Socket } from "node:net";
import { SIM_STARTING_BALANCE } from "../config/defaults.ts";
import { simHistoryDays, simLimitsOn } from "../config/env.ts";
import { AddressBudget } from "./auth/address-budget.ts";
import type { AuthDeps } from "./auth/authenticate.ts";
import { NonceBook, noncesKept } from "./auth/nonce-book.ts";
import type { SigningChain } from "./auth/recover-signer.ts";
import { createSimClock, type SimClock } from "./model/clock.ts";
import {
  HOUSE_ADDRESSES,
  HOUSE_MAKER,
  HOUSE_TAKER,
  HouseDriver,
  type HouseMarket,
} from "./model/house-driver.ts";
import { MarketModel } from "./model/market-model.ts";
import { roundPx } from "./model/price-grid.ts";
import type { PriceState } from "./model/price-process.ts";
import { ReplayModel } from "./model/replay-model.ts";
import { SimScheduler } from "./model/scheduler.ts";
import type { WorldModel } from "./model/world-model.ts";
import { loadSimPast } from "./past.ts";
import { WorldStore } from "./persist/world-store.ts";
import { yieldPools } from "./rates/yield-pools.ts";
import { loadRecording, type SimReplay } from "./replay/load.ts";
import { recordedPast } from "./replay/past.ts";
import type { RecordedMarket } from "./replay/recorded.ts";
import { AdminError, type SimControl } from "./server/admin.ts";
import { encodeBuilderFillsFile } from "./server/builder-fills-file.ts";
import { SimFaults } from "./server/faults.ts";
import { createSimHttpServer } from "./server/http.ts";
import { InfoCache } from "./server/info-cache.ts";
import { IP_WEIGHT_PER_MINUTE, IpWeightLimiter } from "./server/ip-weight.ts";
import { UsdypFaucet } from "./server/usdyp-claim.ts";
import { type AddressWeight, WeightMeter } from "./server/weight-meter.ts";
import { SimWebSocket } from "./server/ws.ts";
import { type AddressWsUse, WS_LIMITS, WsLimiter, type WsLimits } from "./server/ws-limits.ts";
import { createVenue, DEFAULT_MARKETS, type SimVenue } from "./venue/index.ts";
import { DEFAULT_IMPACT_NOTIONAL_USD } from "./venue/markets.ts";
import type { Address } from "./venue.ts";

interface SimWorldOptions {
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
  /**
   * Which signing flavours are accepted. Default: testnet ("b"), the one paper orders are signed with
   * (an exchange accepts its own network's only; a mainnet-signed action recovers some unknown wallet).
   */
  chains?: SigningChain[];
  /** Sim time at start (default: wall time now). */
  startMs?: number;
  /**
   * Directory holding the world's state (sim.db): when set, the world restores its clock, prices and
   * accounts from there on start and saves them every few seconds and on close.
   */
  stateDir?: string;
  /** Days of market history backfilled before start (default HL_SIM_HISTORY_DAYS, else 30; 0 = no past). */
  historyDays?: number;
  /** Coins forced to trend from the start (e.g. a demo "mover"): drift per hour for a while. */
  movers?: { coin: string; driftPerHour: number; durationMs: number }[];
  /**
   * Replay recorded history instead of inventing prices: the clock starts at `fromMs`, the recorded
   * coins' candles, books and funding play back on it, and the minutes before `fromMs` are the past.
   */
  replay?: SimReplay;
  /**
   * The exchange's limits: the per-address request budget (10,000 + 1 per USDC traded, then 1 per
   * 10 s) and the per-IP weight limit (`ipWeightLimit`). Default: on, unless HL_SIM_LIMITS=off.
   */
  limits?: boolean;
  /**
   * Only these markets move after start (price process, house makers, taker flow); the others keep
   * their past and hold its last price with an empty book. Default: every listed market. Tests that
   * advance hours of sim time name the few they watch.
   */
  liveCoins?: string[];
  /**
   * Hyperliquid's per-IP REST limit: this much request weight per minute per client source address,
   * 429 with a `null` body beyond it. Default: the exchange's 1200 when `limits` is on; `false` turns
   * only this limit off. Everything on this machine (every agent and service of `hl up`) shares the
   * loopback address, as it would share one IP live.
   */
  ipWeightLimit?: number | false;
  /**
   * Hyperliquid's per-IP WebSocket limits (10 connections, 30 new a minute, 1000 subscriptions, 10
   * users in user subscriptions, 2000 messages a minute, 100 posts in flight), refused as the exchange
   * refuses them. Default: the exchange's when `limits` is on; `false` turns only these off. Use is
   * counted either way (`GET /sim/ws-limits`).
   */
  wsLimits?: WsLimits | false;
}

/** What a replaying world plays back. */
interface SimReplayInfo {
  coins: string[];
  fromMs: number;
  /** Where the recording (cut at the replay's `toMs`) runs out. */
  endMs: number;
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
  /** Weight spent per client source address (what GET /sim/weight reports). */
  weight(): { limitPerMinute: number | null; addresses: AddressWeight[] };
  /** WebSocket use per client source address (what GET /sim/ws-limits reports). */
  wsLimits(): { limits: WsLimits | null; addresses: AddressWsUse[] };
  /** Set when the world replays a recording. */
  replay?: SimReplayInfo;
  close(): Promise<void>;
}

const DAY_MS = 86_400_000;
/** A persisted world saves its state this often (wall ms), besides on close. */
const SAVE_EVERY_MS = 5_000;

/** Start a complete sim world: venue, market model, house makers, HTTP + WebSocket server. */
export async function startSimWorld(opts: SimWorldOptions = {}): Promise<SimWorld> {
  if (opts.replay && (opts.stateDir !== undefined || opts.movers?.length))
    throw new Error("a replaying world cannot be persisted (stateDir) or given movers");
  const recording = opts.replay ? await loadRecording(opts.replay) : undefined;
  const store = opts.stateDir === undefined ? undefined : new WorldStore(opts.stateDir);
  const saved = store?.load();
  // A restored world keeps its own seed and resumes at the sim time it was saved at.
  const seed = saved?.seed ?? opts.seed ?? 1;
  const host = opts.host ?? "127.0.0.1";
  const clock = createSimClock({
    speed: opts.speed ?? 1,
    startMs: recording?.fromMs ?? saved?.simTime ?? opts.startMs,
  });
  const venue = createVenue({
    seed,
    clock: clock.now,
    startingBalance: opts.startingBalance ?? SIM_STARTING_BALANCE,
    markets: DEFAULT_MARKETS,
  });

  const specs = new Map(DEFAULT_MARKETS.map((m) => [m.name, m]));
  const listed = venue.markets();
  for (const r of recording?.markets ?? [])
    if (!listed.some((m) => m.coin === r.coin))
      throw new Error(`the sim world has no market ${r.coin} to replay`);
  const replayed = new Set(recording?.markets.map((r) => r.coin));
  // A delisted market keeps its asset id and its last price; nothing trades it.
  for (const m of DEFAULT_MARKETS) if (m.isDelisted) venue.setOraclePrice(m.name, m.startPx);
  // Markets delisted while this world ran before (their settlement comes back with the accounts).
  const delistedHere = new Set(saved?.venue.delisted?.map((d) => d.coin));
  const traded = listed
    .filter((m) => !specs.get(m.coin)?.isDelisted && !delistedHere.has(m.coin))
    .filter((m) => !recording || replayed.has(m.coin));
  const live = opts.liveCoins ? new Set(opts.liveCoins) : undefined;
  for (const coin of live ?? [])
    if (!traded.some((m) => m.coin === coin) && !delistedHere.has(coin))
      throw new Error(`the sim world has no market ${coin} to run`);
  const houseMarkets: HouseMarket[] = traded
    .filter((m) => !live || live.has(m.coin))
    .map((m) => ({
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
  const historyDays = opts.historyDays ?? simHistoryDays();
  if (recording) loadRecordedPast(venue, houseMarkets, recording.markets, clock.now());
  // Markets left out of liveCoins keep their past (made when first looked at) and hold its last
  // price, with no book.
  const pastMarkets = traded.map((m) => ({
    coin: m.coin,
    szDecimals: m.szDecimals,
    startPx: saved?.model[m.coin]?.px ?? Number(specs.get(m.coin)?.startPx ?? "1"),
  }));
  const initial =
    historyDays > 0 && !recording
      ? loadSimPast(venue, pastMarkets, {
          seed,
          endMs: clock.now(),
          days: historyDays,
          running: new Set(houseMarkets.map((m) => m.coin)),
        })
      : new Map<string, PriceState>();
  if (live && !recording)
    for (const m of pastMarkets)
      if (!live.has(m.coin)) venue.setOraclePrice(m.coin, roundPx(m.startPx, m.szDecimals, "nearest"));
  // A restored market continues from its saved state; the past above was regenerated to end there.
  for (const [coin, state] of Object.entries(saved?.model ?? {}))
    if (specs.has(coin)) initial.set(coin, state);
  if (saved) venue.restore(saved.venue);
  const replayModel = recording
    ? new ReplayModel(recording.markets, {
        seed,
        startMs: clock.now(),
        onCandle: (coin, candle) => venue.replayCandle(coin, candle),
      })
    : undefined;
  const model: WorldModel =
    replayModel ?? new MarketModel(modelMarkets, { seed, startMs: clock.now(), initial });
  const replay: SimReplayInfo | undefined =
    recording && replayModel
      ? { coins: replayModel.coins(), fromMs: recording.fromMs, endMs: replayModel.endMs }
      : undefined;

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
      nonces: nonces.snapshot(),
      ...(addressBudget ? { requests: addressBudget.snapshot() } : {}),
    });
  const nonces = saved?.nonces ? NonceBook.restore(saved.nonces) : new NonceBook();
  const limitsOn = opts.limits ?? simLimitsOn();
  const ipWeightLimit =
    opts.ipWeightLimit === false
      ? undefined
      : (opts.ipWeightLimit ?? (limitsOn ? IP_WEIGHT_PER_MINUTE : undefined));
  const weightMeter = new WeightMeter();
  const wsLimiter = new WsLimiter(
    opts.wsLimits === false ? undefined : (opts.wsLimits ?? (limitsOn ? WS_LIMITS : undefined)),
  );
  const addressBudget = limitsOn
    ? saved?.requests
      ? AddressBudget.restore(saved.requests)
      : new AddressBudget()
    : undefined;
  const volumeUsd = (user: Address): number =>
    Number((venue.info({ type: "userRateLimit", user }) as { cumVlm: string }).cumVlm);
  const saver = store ? setInterval(save, SAVE_EVERY_MS) : undefined;
  saver?.unref();

  const auth: AuthDeps = {
    now: clock.now,
    wallNow: Date.now,
    nonces,
    chains: opts.chains ?? ["Testnet"],
    masterOf: (a) => venue.masterOf(a) ?? (known.has(a) ? a : undefined),
    noncesKept: (user) => noncesKept(volumeUsd(user)),
    volumeUsd,
    ...(addressBudget ? { addressBudget } : {}),
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
      if (replay) throw new AdminError(409, "a replaying world takes its prices from the recording");
      if (venue.delisted().includes(coin)) throw new AdminError(409, `${coin} is delisted`);
      model.setPrice(coin, Number(px));
      driver.sync();
      return { status: "ok", coin, px: model.price(coin)?.px };
    },
    advance(ms) {
      scheduler.advance(ms);
      return { status: "ok", time: clock.now() };
    },
    delist(coin) {
      const market = listed.find((m) => m.coin === coin);
      if (!market) throw new AdminError(400, `Unknown coin: ${coin}`);
      if (specs.get(coin)?.isDelisted || venue.delisted().includes(coin))
        throw new AdminError(409, `${coin} is already delisted`);
      driver.retire(coin);
      return { status: "ok", ...venue.delist(coin) };
    },
    scenario(s) {
      if (replay) throw new AdminError(409, "a replaying world takes its prices from the recording");
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
        delisted: venue.delisted(),
        ...(replay ? { replay } : {}),
      };
    },
  };

  const infoCache = new InfoCache(venue);
  const faults = new SimFaults();
  const server = createSimHttpServer({
    faults,
    ipWeight: ipWeightLimit === undefined ? undefined : new IpWeightLimiter(ipWeightLimit),
    weightMeter,
    wsLimiter,
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
  const ws = new SimWebSocket(server, { venue, auth, seeUser, limiter: wsLimiter });
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
    weight: () => ({ limitPerMinute: ipWeightLimit ?? null, addresses: weightMeter.report() }),
    wsLimits: () => ({ limits: wsLimiter.limits ?? null, addresses: wsLimiter.report() }),
    ...(replay ? { replay } : {}),
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

/** The recorded minutes and funding before the replay start become each market's past. */
function loadRecordedPast(
  venue: SimVenue,
  markets: readonly HouseMarket[],
  recorded: readonly RecordedMarket[],
  nowMs: number,
): void {
  for (const r of recorded) {
    const m = markets.find((x) => x.coin === r.coin);
    if (!m) continue;
    const past = recordedPast(
      r.candles,
      r.funding,
      { pxDecimals: 6 - m.szDecimals, szDecimals: m.szDecimals },
      nowMs,
    );
    if (past) venue.loadPast(r.coin, past, { buyer: HOUSE_TAKER, seller: HOUSE_MAKER });
  }
}

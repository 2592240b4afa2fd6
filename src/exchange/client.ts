import { join } from "node:path";
import { ExchangeClient, type FrontendOpenOrdersResponse } from "@nktkas/hyperliquid";
import type { Network } from "../config/defaults.ts";
import { dataDir } from "../config/env.ts";
import { D, type DecLike, dec } from "../core/decimal.ts";
import { UserError } from "../core/errors.ts";
import {
  builderField,
  buildOrder,
  buildStopOrder,
  feeRatePercent,
  type OrderRequest,
  type OrderResult,
  type SentOrder,
  type Side,
  type StopOrderRequest,
  type StopOrderResult,
  settleOrders,
  statusesOf,
  stopStatus,
} from "./actions.ts";
import { sharedRateBudget, type WeightBudget } from "./budget.ts";
import { type Address, type BuilderFee, type Hex, parseBuilderFee, resolveEndpoint } from "./config.ts";
import { NetworkError, RejectedError, TimeoutError } from "./errors.ts";
import { HlInfo } from "./info.ts";
import {
  OrderOutcomeUnknownError,
  type PendingOrder,
  type ResolveOptions,
  randomCloid,
  resolveOrderOutcome,
} from "./order-outcome.ts";
import { ensurePaperWorld, type PaperWorld } from "./paper.ts";
import { slippagePrice } from "./rounding.ts";
import {
  loadOrCreatePaperWallet,
  type PaperWallet,
  type ResolvedSigner,
  resolveSigner,
  type Signer,
} from "./signer.ts";
import { ResilientTransport, type RetryPolicy } from "./transport.ts";
import { HlStream } from "./ws.ts";

type Env = Record<string, string | undefined>;

export interface HlClientOptions {
  network: Network;
  /** Overrides the network's URL (default: `apiUrl()` of src/config/env.ts, which honours HL_API_URL). */
  apiUrl?: string;
  /** Overrides the WebSocket URL (default: `<apiUrl>/ws` with ws/wss). */
  wsUrl?: string;
  /** Hex private key (else `signer`, else HL_PRIVATE_KEY). Never logged, never in an error. */
  privateKey?: string;
  /** A viem account or ethers signer, used instead of a private key. */
  signer?: Signer;
  /** Keystore to sign with (address or path, the CLI's `--keystore`); else the wallet module decides. */
  keystore?: string;
  /**
   * On the paper network with no key configured, sign with the local paper wallet
   * (`$DATA_DIR/paper/key.json`, created on first use). Default true.
   */
  paperWallet?: boolean;
  /** Builder code attached to every order this client places. */
  builder?: BuilderFee;
  /** Weight budget; default the process-wide one of this API URL. */
  budget?: WeightBudget;
  /** Per-request timeout (default 10 s). */
  timeoutMs?: number;
  /** Source address of the HTTP connections (see `ResilientTransportOptions.localAddress`). */
  localAddress?: string;
  /**
   * How long after sending an order the exchange may still execute it (its `expiresAfter`; default
   * the request timeout + 5 s). Past it, an order the exchange does not know is certainly not placed.
   */
  orderTtlMs?: number;
  retry?: Partial<RetryPolicy>;
  env?: Env;
}

/** Marketable order: a limit IOC priced off the book or the mid, at most `slippage` away. */
/** Options of a call that sends orders. */
interface SendOptions {
  /**
   * Called just before the signed request goes out, with each order as it will be sent and its
   * expiry: a caller that saves them first can resolve the orders after a crash mid-request.
   */
  onSending?: (pending: readonly PendingOrder[]) => void;
}

interface MarketOrderRequest {
  instrument: string;
  side: Side;
  size: DecLike;
  /** Fraction, e.g. "0.01" = 1 %. Default 0.01 from the mid, 0.001 from the touch. */
  slippage?: DecLike;
  /** Price off the mid (default) or off the best opposite level of the book ("touch"). */
  reference?: "mid" | "touch";
  reduceOnly?: boolean;
  cloid?: Hex;
}

/**
 * The one Hyperliquid client: every info read (inherited from HlInfo), every signed action, and the
 * WebSocket stream, on one budgeted, retrying transport. Create with `HlClient.create(...)`.
 */
export class HlClient extends HlInfo {
  readonly network: Network;
  readonly apiUrl: string;
  readonly wsUrl: string;
  /** Signing flavour (true on testnet and paper). */
  readonly isTestnet: boolean;
  private builderFee: BuilderFee | undefined;
  /** Where the signing key came from ("HL_PRIVATE_KEY", "paper wallet <path>", …), if any. */
  readonly signerSource: string | undefined;
  /** Set when this client signs with the local paper wallet; `created` on its first use. */
  readonly paperWallet: { path: string; created: boolean } | undefined;
  /** Where a sim world started by this client keeps its state (paper network). */
  private paperStateDir: string | undefined;
  /** The SDK's exchange client on the same transport (undefined without a wallet). */
  readonly exchangeClient: ExchangeClient | undefined;
  private streamInstance: HlStream | undefined;
  private readonly orderTtlMs: number;

  private constructor(
    transport: ResilientTransport,
    endpoint: { network: Network; apiUrl: string; wsUrl: string; isTestnet: boolean },
    signer: ResolvedSigner | PaperWallet | undefined,
    builder: BuilderFee | undefined,
    orderTtlMs: number,
  ) {
    super(transport, signer?.address);
    this.network = endpoint.network;
    this.apiUrl = endpoint.apiUrl;
    this.wsUrl = endpoint.wsUrl;
    this.isTestnet = endpoint.isTestnet;
    this.builderFee = builder;
    this.signerSource = signer?.source;
    this.paperWallet =
      signer && "path" in signer ? { path: signer.path, created: signer.created } : undefined;
    this.exchangeClient = signer ? new ExchangeClient({ transport, wallet: signer.wallet }) : undefined;
    this.orderTtlMs = orderTtlMs;
  }

  /** Builder code attached to every order this client places (undefined: none). */
  get builder(): BuilderFee | undefined {
    return this.builderFee;
  }

  /** Attach (or with undefined, drop) the builder code for the orders placed from now on. */
  useBuilder(builder: BuilderFee | undefined): void {
    this.builderFee = builder === undefined ? undefined : parseBuilderFee(builder);
  }

  static async create(opts: HlClientOptions): Promise<HlClient> {
    const env = opts.env ?? process.env;
    const endpoint = resolveEndpoint(opts.network, { apiUrl: opts.apiUrl, wsUrl: opts.wsUrl }, env);
    const builder = opts.builder ? parseBuilderFee(opts.builder) : undefined;
    let signer: ResolvedSigner | PaperWallet | undefined = await resolveSigner(
      {
        signer: opts.signer,
        privateKey: opts.privateKey,
        keystore: opts.keystore,
        keystores: opts.network !== "paper",
      },
      env,
    );
    if (!signer && opts.network === "paper" && opts.paperWallet !== false)
      signer = loadOrCreatePaperWallet(env);
    const transport = new ResilientTransport({
      apiUrl: endpoint.apiUrl,
      isTestnet: endpoint.isTestnet,
      budget: opts.budget ?? sharedRateBudget(endpoint.apiUrl, env),
      timeoutMs: opts.timeoutMs,
      retry: opts.retry,
      localAddress: opts.localAddress,
    });
    const orderTtlMs = opts.orderTtlMs ?? (opts.timeoutMs ?? 10_000) + 5_000;
    const client = new HlClient(transport, endpoint, signer, builder, orderTtlMs);
    client.paperStateDir = join(dataDir(env), "sim");
    return client;
  }

  /** On paper: start the sim world in-process when nothing answers at `apiUrl`. Other networks: an error. */
  async ensurePaperWorld(opts: { seed?: number } = {}): Promise<PaperWorld> {
    if (this.network !== "paper")
      throw new UserError(`ensurePaperWorld is for the paper network, not ${this.network}`);
    // The world this process starts is the one saved next to the paper wallet (DATA_DIR/sim).
    return ensurePaperWorld(this.apiUrl, { ...opts, stateDir: this.paperStateDir });
  }

  /** WebSocket subscriptions (connection opened on first use, closed by `close()`). */
  get stream(): HlStream {
    this.streamInstance ??= new HlStream({ url: this.wsUrl, isTestnet: this.isTestnet });
    return this.streamInstance;
  }

  private exchange(): ExchangeClient {
    if (!this.exchangeClient) throw new UserError("no wallet configured: set HL_PRIVATE_KEY to place orders");
    return this.exchangeClient;
  }

  // ── orders ─────────────────────────────────────────────────────────────────────────────────

  /** Place one limit order (rounded to tick/lot; builder fee attached when configured). */
  async order(req: OrderRequest, opts?: SendOptions): Promise<OrderResult> {
    const [result] = await this.orders([req], opts);
    if (!result) throw new RejectedError("the exchange answered an order with no status");
    return result;
  }

  /**
   * Place a batch of limit orders in one signed action; one result per order, in order. Every order
   * carries a cloid (a random one unless given) and the action an `expiresAfter`. When the answer is
   * lost after sending (timeout, reset connection), this throws OrderOutcomeUnknownError: resolve it
   * with `resolveOrder` before sending anything else for those coins.
   */
  async orders(reqs: readonly OrderRequest[], opts: SendOptions = {}): Promise<OrderResult[]> {
    if (reqs.length === 0) return [];
    const exchange = this.exchange();
    const symbols = await this.symbols();
    const built = reqs.map((req) =>
      buildOrder({ ...req, cloid: req.cloid ?? randomCloid() }, symbols.resolve(req.instrument)),
    );
    const sent: SentOrder[] = built.map((b) => b.sent);
    const sentAtMs = Date.now();
    const expiresAfter = sentAtMs + this.orderTtlMs;
    const pendingOrders = () =>
      sent.map(
        (order): PendingOrder => ({
          order: order as SentOrder & { cloid: Hex },
          sentAtMs,
          expiresAfterMs: expiresAfter,
        }),
      );
    opts.onSending?.(pendingOrders());
    try {
      return await settleOrders(
        () =>
          exchange.order(
            { orders: built.map((b) => b.wire), grouping: "na", ...builderField(this.builder) },
            { expiresAfter },
          ),
        sent,
      );
    } catch (err) {
      if (!outcomeUnknown(err)) throw err;
      throw new OrderOutcomeUnknownError(
        `order outcome unknown (${err instanceof Error ? err.message : String(err)})`,
        pendingOrders(),
        { cause: err },
      );
    }
  }

  /** What really became of an order whose answer was lost (see `orders`); waits until it is certain. */
  resolveOrder(pending: PendingOrder, opts?: ResolveOptions): Promise<OrderResult> {
    return resolveOrderOutcome(this, pending, opts);
  }

  /**
   * A marketable limit price for `side`: mid·(1 ± slippage) or touch·(1 ± slippage), rounded toward
   * the touch so it stays marketable and never exceeds the slippage.
   */
  async marketablePrice(
    instrument: string,
    side: Side,
    opts: { slippage?: DecLike; reference?: "mid" | "touch" } = {},
  ): Promise<string> {
    const market = await this.market(instrument);
    const reference = opts.reference ?? "mid";
    const slippage = dec(opts.slippage ?? (reference === "touch" ? "0.001" : "0.01"));
    let px: string | undefined;
    if (reference === "touch") {
      const book = await this.l2Book(market.coin);
      const level = side === "buy" ? book?.levels[1][0] : book?.levels[0][0];
      px = level?.px;
    }
    px ??= await this.midPrice(market.coin, market.dex);
    if (px === undefined)
      throw new UserError(`no price for ${market.instrument}: the book is empty and there is no mid`);
    return slippagePrice(px, side, slippage, market.szDecimals);
  }

  /** The mid price of an exchange coin, or undefined if the exchange has none. */
  async midPrice(coin: string, dex = ""): Promise<string | undefined> {
    const mids = await this.allMids(dex);
    const bare = coin.includes(":") ? coin.slice(coin.indexOf(":") + 1) : coin;
    const mid = mids[coin] ?? mids[bare];
    return mid !== undefined && !new D(mid).isZero() ? mid : undefined;
  }

  /** IOC at a marketable limit (see `marketablePrice`). */
  async marketOrder(req: MarketOrderRequest, opts?: SendOptions): Promise<OrderResult> {
    const price = await this.marketablePrice(req.instrument, req.side, {
      slippage: req.slippage,
      reference: req.reference,
    });
    const order: OrderRequest = {
      instrument: req.instrument,
      side: req.side,
      size: req.size,
      price,
      tif: "Ioc",
    };
    if (req.reduceOnly !== undefined) order.reduceOnly = req.reduceOnly;
    if (req.cloid !== undefined) order.cloid = req.cloid;
    return this.order(order, opts);
  }

  // ── stop (trigger) orders: the exchange-side backstops ───────────────────────────────────────

  /** Place a reduce-only stop-market trigger order (grouping "na": its size is fixed, not the position's). */
  async placeStop(req: StopOrderRequest): Promise<StopOrderResult> {
    const market = await this.market(req.instrument);
    const wireOrder = buildStopOrder(req, market);
    return this.stopAnswer(() =>
      this.exchange().order({ orders: [wireOrder], grouping: "na", ...builderField(this.builder) }),
    );
  }

  /**
   * Move a resting stop (found by its cloid) to a new trigger and size in place: one `batchModify`
   * (a modify, not a cancel and a new order; the exchange gives it a new oid, the cloid stays).
   */
  async modifyStop(req: StopOrderRequest): Promise<StopOrderResult> {
    const market = await this.market(req.instrument);
    const wireOrder = buildStopOrder(req, market);
    return this.stopAnswer(() =>
      this.exchange().batchModify({ modifies: [{ oid: req.cloid, order: wireOrder }] }),
    );
  }

  private async stopAnswer(send: () => Promise<unknown>): Promise<StopOrderResult> {
    let response: unknown;
    try {
      response = await send();
    } catch (err) {
      if (!(err instanceof RejectedError)) throw err;
      if (!err.statusErrors) return { status: "error", message: err.message };
      response = err.response;
    }
    const first = statusesOf(response)?.[0];
    return first === undefined
      ? { status: "error", message: "no order status in the reply" }
      : stopStatus(first);
  }

  /** Open orders of every dex with their trigger fields (`isTrigger`, `triggerPx`, `cloid`). */
  async frontendOpenOrdersAllDexes(): Promise<FrontendOpenOrdersResponse> {
    return this.frontendOpenOrdersOf(["", ...(await this.hip3Dexes())]);
  }

  /** Open orders of the named dexes ("" the main one) with their trigger fields; one read (weight 20) each. */
  async frontendOpenOrdersOf(dexes: readonly string[]): Promise<FrontendOpenOrdersResponse> {
    const user = this.userOr(undefined);
    const lists = await Promise.all(
      dexes.map((dex) => this.infoClient.frontendOpenOrders(dex ? { user, dex } : { user })),
    );
    return lists.flat();
  }

  /** Cancel by exchange order id. Throws RejectedError with the exchange's message if it cannot. */
  async cancel(req: { instrument: string; oid: number }): Promise<void> {
    const market = await this.market(req.instrument);
    await this.exchange().cancel({ cancels: [{ a: market.assetId, o: req.oid }] });
  }

  /**
   * Cancel many orders in one signed action (by oid, or by cloid when no oid is given); one outcome
   * per order, in order: `undefined` when cancelled, else the exchange's refusal (e.g. "Order was
   * never placed, already canceled, or filled."). A failure of the whole call is thrown.
   */
  async cancelMany(
    reqs: readonly { instrument: string; oid?: number; cloid?: Hex }[],
  ): Promise<(string | undefined)[]> {
    if (reqs.length === 0) return [];
    const byOid = reqs.map((r, i) => ({ r, i })).filter(({ r }) => r.oid !== undefined);
    const byCloid = reqs.map((r, i) => ({ r, i })).filter(({ r }) => r.oid === undefined);
    const out: (string | undefined)[] = reqs.map(() => undefined);
    const assets = await Promise.all(reqs.map(async (r) => (await this.market(r.instrument)).assetId));
    const collect = async (idx: number[], send: () => Promise<unknown>) => {
      let response: unknown;
      try {
        response = await send();
      } catch (err) {
        if (!(err instanceof RejectedError) || !err.statusErrors) throw err;
        response = err.response;
      }
      const statuses = statusesOf(response);
      idx.forEach((at, k) => {
        const st = statuses?.[k];
        out[at] =
          st === "success"
            ? undefined
            : typeof st === "object" && st !== null && typeof (st as { error?: unknown }).error === "string"
              ? (st as { error: string }).error
              : `unrecognised cancel status ${JSON.stringify(st)}`;
      });
    };
    if (byOid.length > 0)
      await collect(
        byOid.map((x) => x.i),
        () => this.exchange().cancel({ cancels: byOid.map(({ r, i }) => ({ a: assets[i]!, o: r.oid! })) }),
      );
    if (byCloid.length > 0) {
      for (const { r } of byCloid)
        if (r.cloid === undefined) throw new UserError("a cancel needs an oid or a cloid");
      await collect(
        byCloid.map((x) => x.i),
        () =>
          this.exchange().cancelByCloid({
            cancels: byCloid.map(({ r, i }) => ({ asset: assets[i]!, cloid: r.cloid! })),
          }),
      );
    }
    return out;
  }

  /** Cancel by client order id. Throws RejectedError with the exchange's message if it cannot. */
  async cancelByCloid(req: { instrument: string; cloid: Hex }): Promise<void> {
    const market = await this.market(req.instrument);
    await this.exchange().cancelByCloid({ cancels: [{ asset: market.assetId, cloid: req.cloid }] });
  }

  /** Set leverage (cross by default; isolated where the market allows only that). Takes YEX and HIP-3 names too. */
  async updateLeverage(req: { instrument: string; leverage: number; cross?: boolean }): Promise<void> {
    const market = await this.market(req.instrument);
    if (!Number.isInteger(req.leverage) || req.leverage < 1 || req.leverage > market.maxLeverage) {
      throw new UserError(
        `leverage for ${market.instrument} must be an integer from 1 to ${market.maxLeverage}, got ${req.leverage}`,
      );
    }
    await this.exchange().updateLeverage({
      asset: market.assetId,
      isCross: req.cross ?? !market.onlyIsolated,
      leverage: req.leverage,
    });
  }

  /**
   * Dead man's switch: at `atMs` the exchange cancels every open order of the account (all
   * instruments) unless this is called again later; `null` disarms it. At least 5 s ahead; the
   * exchange lets it fire at most 10 times a day.
   */
  async scheduleCancel(atMs: number | null): Promise<void> {
    await this.exchange().scheduleCancel(atMs === null ? {} : { time: atMs });
  }

  /** Approve a builder's fee for this account (user-signed). `maxFeeTenthsBps` 10 = 0.01 %. */
  async approveBuilderFee(req: { builder: Address; maxFeeTenthsBps: number }): Promise<void> {
    await this.exchange().approveBuilderFee({
      builder: req.builder,
      maxFeeRate: feeRatePercent(req.maxFeeTenthsBps),
    });
  }

  /**
   * Turn HIP-3 dex abstraction on for this account (`agentEnableDexAbstraction`, an L1 action: the
   * account's key or its API wallet may send it). The exchange accepts it only while the account's
   * mode was never set; see `dex-margin.ts`.
   */
  async enableDexAbstraction(): Promise<void> {
    await this.exchange().agentEnableDexAbstraction();
  }

  /**
   * Turn HIP-3 dex abstraction on or off for this account (`userDexAbstraction`, user-signed: the
   * account's own key, never an API wallet). Accepted whatever the mode was before.
   */
  async setDexAbstraction(enabled: boolean): Promise<void> {
    const user = this.userOr(undefined);
    await this.exchange().userDexAbstraction({ user, enabled });
  }

  /**
   * Move a token between this account's own balances (`sendAsset` to itself, user-signed): perp dexes
   * by name ("" the main one) or "spot"; `token` as `NAME:0x<tokenId>` (see `collateralTokens`).
   */
  async sendAssetToSelf(req: {
    sourceDex: string;
    destinationDex: string;
    token: string;
    amount: DecLike;
  }): Promise<void> {
    const destination = this.userOr(undefined);
    await this.exchange().sendAsset({
      destination,
      sourceDex: req.sourceDex,
      destinationDex: req.destinationDex,
      token: req.token,
      amount: dec(req.amount).toFixed(),
    });
  }

  /** Send USDC to another account on Hyperliquid (user-signed). */
  async usdSend(req: { destination: Address; amount: DecLike }): Promise<void> {
    await this.exchange().usdSend({ destination: req.destination, amount: dec(req.amount).toFixed() });
  }

  /** Withdraw USDC to an address on Arbitrum (user-signed). */
  async withdraw(req: { destination: Address; amount: DecLike }): Promise<void> {
    await this.exchange().withdraw3({ destination: req.destination, amount: dec(req.amount).toFixed() });
  }

  /** Close the WebSocket stream, if one was opened, and connections bound to a source address. */
  async close(): Promise<void> {
    const stream = this.streamInstance;
    this.streamInstance = undefined;
    if (stream) await stream.close();
    await this.transport.close();
  }
}

/** A request that may have reached the exchange but whose answer was lost (not a refusal, not "never sent"). */
function outcomeUnknown(err: unknown): boolean {
  if (err instanceof TimeoutError) return true;
  return err instanceof NetworkError && !/ECONNREFUSED/.test(err.message);
}

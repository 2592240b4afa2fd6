import type { IncomingMessage, Server } from "node:http";
import { type WebSocket, WebSocketServer } from "ws";
import type { AuthDeps } from "../auth/authenticate.ts";
import { LIQUIDATOR } from "../venue/index.ts";
import type { Address, Venue, VenueEvent } from "../venue.ts";
import { answerExchange, answerInfo, type EndpointResult } from "./endpoints.ts";
import { sourceAddress } from "./source-address.ts";
import { dexOf, type Subscription, subscriptionId, subscriptionSchema, topicOf } from "./subscriptions.ts";
import { WS_REFUSED_CLOSE_CODE, type WsLimiter } from "./ws-limits.ts";

interface SimWsDeps {
  venue: Venue;
  auth: AuthDeps;
  seeUser(user: Address): void;
  /** Bursts of venue events within this window go out as one message per stream. */
  flushEveryMs?: number;
  /** Hyperliquid's per-IP WebSocket limits (counted always, enforced when it has limits). */
  limiter?: WsLimiter;
}

interface Client {
  ws: WebSocket;
  /** Source address, as the per-IP limits count it. */
  address: string;
  /** subscription id → topic */
  subs: Map<string, string>;
  /** Post requests received and not yet answered. */
  inflight: number;
}

interface TopicSub {
  sub: Subscription;
  clients: Set<Client>;
}

/** A client that lets this much pile up unread is dropped rather than buffered without end. */
const MAX_BUFFERED_BYTES = 16 * 1024 * 1024;
/** Account streams sent again when the account changes or prices move (the account is revalued). */
const REPRICED = new Set(["clearinghouseState", "webData2", "activeAssetData"]);
/** Price moves alone re-send a subscribed account's state at most this often. */
const ACCOUNT_REPRICE_MS = 1000;
/** Order endings the user did not ask for, reported to userEvents as `nonUserCancel`. */
const NON_USER_CANCELS = new Set([
  "marginCanceled",
  "selfTradeCanceled",
  "reduceOnlyCanceled",
  "liquidatedCanceled",
  "scheduledCancel",
  "delistedCanceled",
]);

/**
 * The sim world's WebSocket (paths `/ws` and `/`): Hyperliquid's `post`, `subscribe`, `unsubscribe`
 * and `ping`, and pushes on allMids, l2Book, bbo, trades, candle, userFills, orderUpdates, assetCtxs,
 * activeAssetCtx, clearinghouseState, openOrders, userEvents, userFundings, webData2, activeAssetData
 * and userNonFundingLedgerUpdates, driven by the venue's events and coalesced per stream. `notification`
 * is accepted and never pushed: the exchange's notifications on record come from TWAP orders, which
 * the sim refuses.
 */
export class SimWebSocket {
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: 1_048_576 });
  private readonly clients = new Set<Client>();
  /** topic → subscription id → subscribers */
  private readonly topics = new Map<string, Map<string, TopicSub>>();
  private readonly dirtyMids = new Set<string>();
  private readonly dirtyBooks = new Set<string>();
  private readonly trades = new Map<string, unknown[]>();
  private readonly fills = new Map<string, unknown[]>();
  private readonly orderUpdates = new Map<string, unknown[]>();
  private readonly candles = new Map<string, unknown>();
  /** Users whose clearinghouseState / openOrders streams changed. */
  private readonly dirtyAccounts = new Set<string>();
  private readonly dirtyOrders = new Set<string>();
  /** user → userEvents messages (each one variant: fills, funding, liquidation, nonUserCancel). */
  private readonly userEvents = new Map<string, unknown[]>();
  private readonly fundings = new Map<string, unknown[]>();
  /** user → non-funding ledger updates (deposits, transfers, withdrawals, liquidations). */
  private readonly ledgers = new Map<string, unknown[]>();
  /** Topics per watched account ("user:0x…") and per coin with trades or candles ("coin:BTC"). */
  private readonly watched = new Map<string, number>();
  private lastAccountReprice = 0;
  private flushTimer: NodeJS.Timeout | undefined;
  private readonly unsubscribeVenue: () => void;
  private readonly flushEveryMs: number;

  constructor(
    server: Server,
    private readonly deps: SimWsDeps,
  ) {
    this.flushEveryMs = deps.flushEveryMs ?? 20;
    server.on("upgrade", (req, socket, head) => {
      const path = (req.url ?? "/").split("?")[0];
      if (path !== "/ws" && path !== "/") {
        socket.end("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n");
        return;
      }
      this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws, req));
    });
    this.unsubscribeVenue = deps.venue.subscribe((e) => this.onVenueEvent(e), {
      user: (user) => this.watched.has(`user:${user.toLowerCase()}`),
      coin: (coin) => this.watched.has(`coin:${coin}`),
    });
  }

  close(): void {
    this.unsubscribeVenue();
    if (this.flushTimer) clearTimeout(this.flushTimer);
    for (const c of this.clients) c.ws.terminate();
    this.clients.clear();
    this.wss.close();
  }

  private accept(ws: WebSocket, req: IncomingMessage): void {
    const address = sourceAddress(req);
    // Over a connection limit the exchange completes the handshake, then closes with 1008 and the reason.
    const refused = this.deps.limiter?.open(address);
    if (refused !== undefined) {
      ws.close(WS_REFUSED_CLOSE_CODE, refused);
      return;
    }
    const client: Client = { ws, address, subs: new Map(), inflight: 0 };
    this.clients.add(client);
    ws.on("message", (data) => {
      const over = this.deps.limiter?.message(address);
      if (over !== undefined) return this.send(client, { channel: "error", data: over });
      this.onMessage(client, data.toString()).catch((err: unknown) => {
        this.send(client, {
          channel: "error",
          data: `Internal error: ${err instanceof Error ? err.message : String(err)}`,
        });
      });
    });
    ws.on("close", () => this.drop(client));
    ws.on("error", () => this.drop(client));
  }

  private drop(client: Client): void {
    if (!this.clients.delete(client)) return;
    for (const [id, topic] of client.subs) {
      this.removeSub(client, id, topic);
      this.deps.limiter?.unsubscribe(client.address, typeOfTopic(topic), userOfTopic(topic));
    }
    for (; client.inflight > 0; client.inflight--) this.deps.limiter?.postEnd(client.address);
    this.deps.limiter?.close(client.address);
  }

  private send(client: Client, msg: unknown): void {
    this.sendRaw(client, JSON.stringify(msg));
  }

  private sendRaw(client: Client, text: string): void {
    if (client.ws.readyState !== client.ws.OPEN) return;
    if (client.ws.bufferedAmount > MAX_BUFFERED_BYTES) {
      client.ws.terminate();
      return;
    }
    client.ws.send(text);
  }

  private async onMessage(client: Client, text: string): Promise<void> {
    let msg: { method?: unknown; id?: unknown; request?: unknown; subscription?: unknown } | null;
    try {
      msg = JSON.parse(text);
    } catch {
      msg = null;
    }
    if (typeof msg !== "object" || msg === null) {
      return this.send(client, {
        channel: "error",
        data: `Error parsing JSON into valid websocket request: ${text}`,
      });
    }
    switch (msg.method) {
      case "ping":
        return this.send(client, { channel: "pong" });
      case "post":
        return this.onPost(client, msg.id, msg.request);
      case "subscribe":
        return this.onSubscribe(client, msg.subscription);
      case "unsubscribe":
        return this.onUnsubscribe(client, msg.subscription);
      default:
        return this.send(client, {
          channel: "error",
          data: `Error parsing JSON into valid websocket request: ${text}`,
        });
    }
  }

  private async onPost(client: Client, id: unknown, request: unknown): Promise<void> {
    if (typeof id !== "number") {
      return this.send(client, {
        channel: "error",
        data: `Post request needs a numeric id: ${JSON.stringify(request)}`,
      });
    }
    const busy = this.deps.limiter?.postStart(client.address, id);
    if (busy !== undefined) return this.send(client, { channel: "error", data: busy });
    client.inflight += 1;
    try {
      await this.answerPost(client, id, request);
    } finally {
      // A connection dropped meanwhile has already given its posts back.
      if (this.clients.has(client)) {
        client.inflight -= 1;
        this.deps.limiter?.postEnd(client.address);
      }
    }
  }

  private async answerPost(client: Client, id: number, request: unknown): Promise<void> {
    const req = request as { type?: unknown; payload?: unknown } | undefined;
    let result: EndpointResult;
    if (req?.type === "info")
      result = answerInfo(this.deps.venue, req.payload, this.deps.seeUser, this.deps.auth.addressBudget);
    else if (req?.type === "action")
      result = await answerExchange(this.deps.venue, this.deps.auth, req.payload, this.deps.seeUser);
    else result = { ok: false, message: `Unknown post request type ${JSON.stringify(req?.type)}` };

    let response: unknown;
    if (!result.ok) response = { type: "error", payload: result.message };
    else if (req?.type === "info") {
      response = {
        type: "info",
        payload: { type: (req.payload as { type: string }).type, data: result.body },
      };
    } else response = { type: "action", payload: result.body };
    this.send(client, { channel: "post", data: { id, response } });
  }

  private onSubscribe(client: Client, raw: unknown): void {
    const parsed = subscriptionSchema.safeParse(raw);
    if (!parsed.success) {
      this.send(client, { channel: "error", data: `Invalid subscription ${JSON.stringify(raw)}` });
      return;
    }
    const sub = parsed.data;
    const id = subscriptionId(raw);
    if (client.subs.has(id)) {
      this.send(client, { channel: "error", data: `Already subscribed: ${JSON.stringify(raw)}` });
      return;
    }
    const over = this.deps.limiter?.subscribe(client.address, sub.type, "user" in sub ? sub.user : undefined);
    if (over !== undefined) {
      this.send(client, { channel: "error", data: over });
      return;
    }
    // A first look opens the account (its starting deposit): done before the ledger stream listens,
    // so that the deposit shows in its snapshot only, not again as a push.
    if (sub.type === "userNonFundingLedgerUpdates") this.info({ type: sub.type, user: sub.user });
    const topic = topicOf(sub);
    client.subs.set(id, topic);
    let byId = this.topics.get(topic);
    if (!byId) {
      byId = new Map();
      this.topics.set(topic, byId);
      this.watch(sub, 1);
    }
    let entry = byId.get(id);
    if (!entry) {
      entry = { sub, clients: new Set() };
      byId.set(id, entry);
    }
    entry.clients.add(client);
    this.send(client, { channel: "subscriptionResponse", data: { method: "subscribe", subscription: raw } });
    this.sendSnapshot(client, sub);
  }

  private onUnsubscribe(client: Client, raw: unknown): void {
    const id = subscriptionId(raw);
    const topic = client.subs.get(id);
    if (topic === undefined) {
      this.send(client, { channel: "error", data: `Already unsubscribed: ${JSON.stringify(raw)}` });
      return;
    }
    this.removeSub(client, id, topic);
    client.subs.delete(id);
    this.deps.limiter?.unsubscribe(client.address, typeOfTopic(topic), userOfTopic(topic));
    this.send(client, {
      channel: "subscriptionResponse",
      data: { method: "unsubscribe", subscription: raw },
    });
  }

  private removeSub(client: Client, id: string, topic: string): void {
    const byId = this.topics.get(topic);
    const entry = byId?.get(id);
    if (!byId || !entry) return;
    entry.clients.delete(client);
    if (entry.clients.size === 0) byId.delete(id);
    if (byId.size === 0) {
      this.topics.delete(topic);
      this.watch(entry.sub, -1);
    }
  }

  /** Count a topic opened (1) or closed (−1) under the account or coin whose events it needs. */
  private watch(sub: Subscription, delta: 1 | -1): void {
    const key =
      "user" in sub
        ? `user:${sub.user.toLowerCase()}`
        : sub.type === "trades" || sub.type === "candle"
          ? `coin:${sub.coin}`
          : undefined;
    if (key === undefined) return;
    const n = (this.watched.get(key) ?? 0) + delta;
    if (n > 0) this.watched.set(key, n);
    else this.watched.delete(key);
  }

  /** What Hyperliquid sends right after a subscription: the current state of the stream. */
  private sendSnapshot(client: Client, sub: Subscription): void {
    const msg = this.currentState(sub, true);
    if (msg !== undefined) this.send(client, msg);
  }

  private info(req: { type: string; [k: string]: unknown }): unknown {
    try {
      return this.deps.venue.info(req);
    } catch {
      return undefined;
    }
  }

  /** The message carrying a stream's current state (books and mids), or a fills snapshot. */
  private currentState(sub: Subscription, snapshot: boolean): unknown {
    switch (sub.type) {
      case "allMids": {
        const mids = this.info(sub.dex ? { type: "allMids", dex: sub.dex } : { type: "allMids" });
        if (mids === undefined) return undefined;
        return { channel: "allMids", data: sub.dex ? { dex: sub.dex, mids } : { mids } };
      }
      case "l2Book": {
        const book = this.info({
          type: "l2Book",
          coin: sub.coin,
          nSigFigs: sub.nSigFigs ?? null,
          mantissa: sub.mantissa ?? null,
        });
        return book === undefined || book === null ? undefined : { channel: "l2Book", data: book };
      }
      case "bbo": {
        const book = this.info({ type: "l2Book", coin: sub.coin }) as
          | { time: number; levels: unknown[][] }
          | undefined;
        if (!book) return undefined;
        return {
          channel: "bbo",
          data: {
            coin: sub.coin,
            time: book.time,
            bbo: [book.levels[0]?.[0] ?? null, book.levels[1]?.[0] ?? null],
          },
        };
      }
      case "assetCtxs": {
        const dex = sub.dex ?? "";
        const both = this.info(dex ? { type: "metaAndAssetCtxs", dex } : { type: "metaAndAssetCtxs" }) as
          | [unknown, unknown[]]
          | undefined;
        return both ? { channel: "assetCtxs", data: { dex, ctxs: both[1] } } : undefined;
      }
      case "activeAssetCtx": {
        const dex = dexOf(sub.coin);
        const both = this.info(dex ? { type: "metaAndAssetCtxs", dex } : { type: "metaAndAssetCtxs" }) as
          | [{ universe: { name: string }[] }, unknown[]]
          | undefined;
        const i = both ? both[0].universe.findIndex((u) => u.name === sub.coin) : -1;
        return i >= 0 ? { channel: "activeAssetCtx", data: { coin: sub.coin, ctx: both![1][i] } } : undefined;
      }
      case "clearinghouseState": {
        const user = sub.user.toLowerCase() as Address;
        const dex = sub.dex ?? "";
        if (snapshot) this.deps.seeUser(user);
        const state = this.info({ type: "clearinghouseState", user, dex });
        return state === undefined
          ? undefined
          : { channel: "clearinghouseState", data: { dex, user, clearinghouseState: state } };
      }
      case "webData2": {
        const user = sub.user.toLowerCase() as Address;
        if (snapshot) this.deps.seeUser(user);
        const data = this.info({ type: "webData2", user });
        return data === undefined ? undefined : { channel: "webData2", data };
      }
      case "activeAssetData": {
        const user = sub.user.toLowerCase() as Address;
        if (snapshot) this.deps.seeUser(user);
        const data = this.info({ type: "activeAssetData", user, coin: sub.coin });
        return data === undefined ? undefined : { channel: "activeAssetData", data };
      }
      case "openOrders": {
        const user = sub.user.toLowerCase() as Address;
        const dex = sub.dex ?? "";
        if (snapshot) this.deps.seeUser(user);
        const orders = this.info({ type: "frontendOpenOrders", user, dex });
        return orders === undefined ? undefined : { channel: "openOrders", data: { dex, user, orders } };
      }
      case "userFundings": {
        if (!snapshot) return undefined;
        const user = sub.user.toLowerCase() as Address;
        this.deps.seeUser(user);
        const rows = this.info({ type: "userFunding", user }) as
          | { time: number; delta: Record<string, unknown> }[]
          | undefined;
        const fundings = (rows ?? []).map(({ time, delta: { type: _type, ...f } }) => ({ time, ...f }));
        return { channel: "userFundings", data: { isSnapshot: true, user, fundings } };
      }
      case "userNonFundingLedgerUpdates": {
        if (!snapshot) return undefined;
        const user = sub.user.toLowerCase() as Address;
        this.deps.seeUser(user);
        const updates = this.info({ type: "userNonFundingLedgerUpdates", user });
        return {
          channel: "userNonFundingLedgerUpdates",
          data: { isSnapshot: true, user, nonFundingLedgerUpdates: Array.isArray(updates) ? updates : [] },
        };
      }
      case "userFills": {
        if (!snapshot) return undefined;
        const user = sub.user.toLowerCase() as Address;
        this.deps.seeUser(user);
        const fills = this.info({ type: "userFills", user, aggregateByTime: sub.aggregateByTime ?? false });
        return {
          channel: "userFills",
          data: { isSnapshot: true, user, fills: Array.isArray(fills) ? fills : [] },
        };
      }
      default:
        return undefined;
    }
  }

  private hasTopic(topic: string): boolean {
    return this.topics.has(topic);
  }

  private onVenueEvent(e: VenueEvent): void {
    if (this.onAccountEvent(e)) this.flushTimer ??= setTimeout(() => this.flush(), this.flushEveryMs);
    switch (e.kind) {
      case "allMids":
        if (
          !this.hasTopic(`allMids:${e.dex}`) &&
          !this.hasTopic(`assetCtxs:${e.dex}`) &&
          !this.hasTopic(`activeAssetCtx:${e.dex}`)
        ) {
          return;
        }
        this.dirtyMids.add(e.dex);
        break;
      case "l2Book":
        if (!this.hasTopic(`l2Book:${e.coin}`) && !this.hasTopic(`bbo:${e.coin}`)) return;
        this.dirtyBooks.add(e.coin);
        break;
      case "trades":
        if (!this.hasTopic(`trades:${e.coin}`)) return;
        append(this.trades, e.coin, e.trades);
        break;
      case "userFills": {
        const user = e.user.toLowerCase();
        if (!this.hasTopic(`userFills:${user}`)) return;
        append(this.fills, user, e.fills);
        break;
      }
      case "orderUpdates": {
        const user = e.user.toLowerCase();
        if (!this.hasTopic(`orderUpdates:${user}`)) return;
        append(this.orderUpdates, user, e.updates);
        break;
      }
      case "candle": {
        const key = `${e.coin}:${e.interval}`;
        if (!this.hasTopic(`candle:${key}`)) return;
        this.candles.set(key, e.candle);
        break;
      }
      default:
        return;
    }
    this.flushTimer ??= setTimeout(() => this.flush(), this.flushEveryMs);
  }

  /** The account streams an event touches; true when something is waiting to be sent. */
  private onAccountEvent(e: VenueEvent): boolean {
    if (this.topics.size === 0) return false;
    if (e.kind === "allMids") {
      const now = Date.now();
      if (now - this.lastAccountReprice < ACCOUNT_REPRICE_MS) return false;
      let any = false;
      for (const topic of this.topics.keys()) {
        const at = topic.indexOf(":");
        if (!REPRICED.has(topic.slice(0, at))) continue;
        this.dirtyAccounts.add(topic.slice(at + 1));
        any = true;
      }
      if (any) this.lastAccountReprice = now;
      return any;
    }
    if (!("user" in e)) return false;
    const user = e.user.toLowerCase();
    let any = false;
    const mark = (topic: string, set: Set<string>) => {
      if (!this.hasTopic(`${topic}:${user}`)) return;
      set.add(user);
      any = true;
    };
    const event = (msg: unknown) => {
      if (!this.hasTopic(`userEvents:${user}`)) return;
      append(this.userEvents, user, [msg]);
      any = true;
    };
    for (const topic of REPRICED) mark(topic, this.dirtyAccounts);
    switch (e.kind) {
      case "userFills":
        event({ fills: e.fills });
        break;
      case "orderUpdates": {
        mark("openOrders", this.dirtyOrders);
        const cancels = (e.updates as { order: { coin: string; oid: number }; status: string }[])
          .filter((u) => NON_USER_CANCELS.has(u.status))
          .map((u) => ({ coin: u.order.coin, oid: u.order.oid }));
        if (cancels.length > 0) event({ nonUserCancel: cancels });
        break;
      }
      case "funding": {
        const { time: _time, ...funding } = e.funding;
        event({ funding });
        if (this.hasTopic(`userFundings:${user}`)) {
          append(this.fundings, user, [e.funding]);
          any = true;
        }
        break;
      }
      case "ledger": {
        const update = e.update as { hash: string; delta: Record<string, unknown> };
        if (this.hasTopic(`userNonFundingLedgerUpdates:${user}`)) {
          append(this.ledgers, user, [update]);
          any = true;
        }
        if (update.delta.type === "liquidation") {
          const value = String(update.delta.accountValue ?? "0");
          event({
            liquidation: {
              lid: Number.parseInt(update.hash.slice(2, 14), 16),
              liquidator: LIQUIDATOR,
              liquidated_user: user,
              liquidated_ntl_pos: String(update.delta.liquidatedNtlPos ?? "0"),
              liquidated_account_value: value.startsWith("-") ? "0" : value,
            },
          });
        }
        break;
      }
      default:
        break;
    }
    return any;
  }

  /** Send every stream that changed since the last flush, one message per subscription. */
  private flush(): void {
    this.flushTimer = undefined;
    for (const user of this.dirtyAccounts)
      for (const topic of REPRICED) this.publishState(`${topic}:${user}`);
    for (const user of this.dirtyOrders) this.publishState(`openOrders:${user}`);
    for (const [user, list] of this.userEvents)
      for (const data of list) this.publish(`userEvents:${user}`, { channel: "user", data });
    for (const [user, fundings] of this.fundings)
      this.publish(`userFundings:${user}`, { channel: "userFundings", data: { user, fundings } });
    for (const [user, updates] of this.ledgers)
      this.publish(`userNonFundingLedgerUpdates:${user}`, {
        channel: "userNonFundingLedgerUpdates",
        data: { user, nonFundingLedgerUpdates: updates },
      });
    this.dirtyAccounts.clear();
    this.dirtyOrders.clear();
    this.userEvents.clear();
    this.fundings.clear();
    this.ledgers.clear();
    for (const dex of this.dirtyMids) {
      this.publishState(`allMids:${dex}`);
      this.publishState(`assetCtxs:${dex}`);
      this.publishState(`activeAssetCtx:${dex}`);
    }
    for (const coin of this.dirtyBooks) {
      this.publishState(`l2Book:${coin}`);
      this.publishState(`bbo:${coin}`);
    }
    for (const [coin, list] of this.trades) this.publish(`trades:${coin}`, { channel: "trades", data: list });
    for (const [user, list] of this.fills)
      this.publish(`userFills:${user}`, { channel: "userFills", data: { user, fills: list } });
    for (const [user, list] of this.orderUpdates)
      this.publish(`orderUpdates:${user}`, { channel: "orderUpdates", data: list });
    for (const [key, candle] of this.candles)
      this.publish(`candle:${key}`, { channel: "candle", data: candle });
    this.dirtyMids.clear();
    this.dirtyBooks.clear();
    this.trades.clear();
    this.fills.clear();
    this.orderUpdates.clear();
    this.candles.clear();
  }

  /** Push the same message to every subscriber of a topic. */
  private publish(topic: string, msg: unknown): void {
    const byId = this.topics.get(topic);
    if (!byId) return;
    const text = JSON.stringify(msg);
    for (const entry of byId.values()) for (const c of entry.clients) this.sendRaw(c, text);
  }

  /** Push a state stream (mids, books): each subscription's own view (e.g. its nSigFigs). */
  private publishState(topic: string): void {
    const byId = this.topics.get(topic);
    if (!byId) return;
    for (const entry of byId.values()) {
      const msg = this.currentState(entry.sub, false);
      if (msg === undefined) continue;
      const text = JSON.stringify(msg);
      for (const c of entry.clients) this.sendRaw(c, text);
    }
  }
}

/** A subscription's type, from its topic ("l2Book:BTC" → "l2Book"). */
function typeOfTopic(topic: string): string {
  return topic.slice(0, topic.indexOf(":"));
}

/** The user a subscription's topic names, for user-specific streams ("userFills:0x…"). */
function userOfTopic(topic: string): string | undefined {
  const at = topic.indexOf(":0x");
  return at < 0 ? undefined : topic.slice(at + 1);
}

function append(map: Map<string, unknown[]>, key: string, items: unknown[]): void {
  const list = map.get(key);
  if (list) list.push(...items);
  else map.set(key, [...items]);
}

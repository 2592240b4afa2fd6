import { chmodSync, rmSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import { CRITICAL_RESERVE_SHARE, RateBudget } from "./budget.ts";
import { type BrokerReply, MAX_LINE_BYTES, parseRequest } from "./weight-broker-protocol.ts";

/**
 * The machine's weight broker: one RateBudget per API server for every process of `hl up`, which all
 * share one IP and so one per-IP limit. Each process (BrokerBudget) tells it what it spends and asks
 * it before a background read, so a scan uses the weight every other process leaves idle, and the
 * grants never take the window past the capacity.
 */

/** Hyperliquid's 1200 a minute per IP, less 100 for the user's own `hl` commands on the address. */
const BROKER_WEIGHT_PER_MIN = 1100;
/** Takes one connection may have waiting at once: a process has a handful of concurrent reads. */
const MAX_WAITING_PER_CONNECTION = 256;
/** API servers one broker keeps budgets for: `hl up` talks to one sim world. */
const MAX_APIS = 16;

interface WeightBrokerOptions {
  socketPath: string;
  weightPerMinute?: number;
  maxWaitingPerConnection?: number;
  /** The budget for one API server (tests: a fake clock). */
  budget?: (weightPerMinute: number) => RateBudget;
}

export interface WeightBroker {
  socketPath: string;
  /**
   * The budget kept for `api` (undefined past the servers one broker keeps), for the reads of the
   * process that hosts the broker: they spend from it directly, not over the socket, so the IP's
   * whole spending is in one ledger.
   */
  budget(api: string): RateBudget | undefined;
  close(): Promise<void>;
}

export async function startWeightBroker(opts: WeightBrokerOptions): Promise<WeightBroker> {
  const perMinute = opts.weightPerMinute ?? BROKER_WEIGHT_PER_MIN;
  const maxWaiting = opts.maxWaitingPerConnection ?? MAX_WAITING_PER_CONNECTION;
  const makeBudget =
    opts.budget ??
    ((w: number) => new RateBudget({ weightPerMinute: w, reserveShare: CRITICAL_RESERVE_SHARE }));
  const budgets = new Map<string, RateBudget>();
  const sockets = new Set<Socket>();

  const send = (socket: Socket, reply: BrokerReply) => {
    if (!socket.destroyed && socket.writable) socket.write(`${JSON.stringify(reply)}\n`);
  };
  const budgetFor = (api: string): RateBudget | undefined => {
    let budget = budgets.get(api);
    if (!budget && budgets.size < MAX_APIS) {
      budget = makeBudget(perMinute);
      budgets.set(api, budget);
    }
    return budget;
  };

  const onConnection = (socket: Socket) => {
    sockets.add(socket);
    socket.setEncoding("utf8");
    const gone = new AbortController();
    const touched = new Set<RateBudget>();
    /** This connection's takes still waiting, each cancellable by its id. */
    const takes = new Map<number, AbortController>();
    let buffer = "";

    const handle = (line: string) => {
      const request = parseRequest(line);
      if ("error" in request) return send(socket, request);
      const budget = budgetFor(request.api);
      if (!budget) {
        const error = "too many API servers";
        return send(socket, request.type === "take" ? { id: request.id, error } : { error });
      }
      touched.add(budget);
      switch (request.type) {
        case "take": {
          if (takes.size >= maxWaiting)
            return send(socket, { id: request.id, error: "too many takes waiting on this connection" });
          if (takes.has(request.id))
            return send(socket, { id: request.id, error: "a take with this id is already waiting" });
          const cancel = new AbortController();
          takes.set(request.id, cancel);
          budget
            .take(request.weight, {
              background: request.background,
              signal: AbortSignal.any([gone.signal, cancel.signal]),
            })
            .then(
              () => send(socket, { id: request.id }),
              () => undefined, // the client went away or gave the read up: its turn spent nothing
            )
            .finally(() => takes.delete(request.id));
          return;
        }
        case "cancel":
          return takes.get(request.id)?.abort();
        case "charge":
          return budget.charge(request.weight, { background: request.background });
        case "limited": {
          budget.limited(request.retryAfterMs);
          // A 429 is the IP's: every process backs off, not only the one that met it.
          const notice: BrokerReply = { type: "limited", api: request.api, ms: budget.limitedForMs() };
          for (const other of sockets) send(other, notice);
          return;
        }
        case "answered":
          return budget.answered();
        case "failed":
          return budget.failed();
      }
    };

    socket.on("data", (chunk: string) => {
      buffer += chunk;
      for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
        const line = buffer.slice(0, nl).trim();
        buffer = buffer.slice(nl + 1);
        if (line) handle(line);
      }
      if (buffer.length > MAX_LINE_BYTES) {
        send(socket, { error: "line too long" });
        socket.destroy();
      }
    });
    socket.on("error", () => undefined); // "close" follows
    socket.on("close", () => {
      sockets.delete(socket);
      gone.abort();
      // A probe after a 429 this client was granted will never be answered: end it, or every other
      // waiter would wait for it forever.
      for (const budget of touched) budget.failed();
    });
  };

  // A socket file left by a broker that is gone would refuse the bind.
  rmSync(opts.socketPath, { force: true });
  const server = createServer(onConnection);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.socketPath, () => {
      server.off("error", reject);
      resolve();
    });
  });
  chmodSync(opts.socketPath, 0o600);

  return {
    socketPath: opts.socketPath,
    budget: budgetFor,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(opts.socketPath, { force: true });
    },
  };
}

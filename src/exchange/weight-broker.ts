import { chmodSync, rmSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import { CRITICAL_RESERVE_SHARE, RateBudget } from "./budget.ts";
import { type BrokerReply, MAX_LINE_BYTES, parseRequest } from "./weight-broker-protocol.ts";

/**
 * The machine's weight broker: one RateBudget per API server for every process of `hl up`, which all
 * share one IP and so one per-IP limit. Each process asks it before spending weight (BrokerBudget),
 * so weight one leaves idle is another's, and no minute of the IP spends more than the capacity.
 */

/** Hyperliquid's 1200 a minute per IP, less 100 for the user's own `hl` commands on the address. */
export const BROKER_WEIGHT_PER_MIN = 1100;
/**
 * Of the capacity, the part kept as floors: each process may spend a quarter of its own budget (the
 * `share` it announces, HL_RATE_WEIGHT_PER_MIN) at once, whatever the others spend, while its floor
 * lasts; the rest is one pool for all. A burst of one process (a start, a service's history reads)
 * then never holds up another's ticks for the minute it takes to age out, and the two together
 * never spend more than the capacity. Floors go first come, first served, until this part is given.
 */
export const BROKER_FLOOR_SHARE = 0.25;
/** A floor given back waits out the window, so the weight it spent is gone before it is reused. */
const FLOOR_RETURN_MS = 61_000;
/** Takes one connection may have waiting at once: a process has a handful of concurrent reads. */
const MAX_WAITING_PER_CONNECTION = 256;
/** API servers one broker keeps budgets for: `hl up` talks to one sim world. */
const MAX_APIS = 16;

export interface WeightBrokerOptions {
  socketPath: string;
  weightPerMinute?: number;
  maxWaitingPerConnection?: number;
  /**
   * Weight a minute kept for the processes' floors (default a quarter of the capacity, at most half):
   * `hl up` sizes it to a quarter of its processes' shares, so each one's floor is there.
   */
  floorWeight?: number;
  /** The budget for one API server and for each floor (tests: a fake clock). */
  budget?: (weightPerMinute: number, reserveShare: number) => RateBudget;
  /** Sees every grant as it is made (measurements). */
  observe?: (grant: { api: string; weight: number; background: boolean; floor: boolean }) => void;
}

/** One API server's budgets: the pool every process shares, and what is left to give as floors. */
interface ApiBudget {
  pool: RateBudget;
  floorLeft: number;
}

export interface WeightBroker {
  socketPath: string;
  close(): Promise<void>;
}

export async function startWeightBroker(opts: WeightBrokerOptions): Promise<WeightBroker> {
  const perMinute = opts.weightPerMinute ?? BROKER_WEIGHT_PER_MIN;
  const maxWaiting = opts.maxWaitingPerConnection ?? MAX_WAITING_PER_CONNECTION;
  const floorWeight = Math.min(
    Math.max(opts.floorWeight ?? perMinute * BROKER_FLOOR_SHARE, 0),
    perMinute / 2,
  );
  const makeBudget =
    opts.budget ??
    ((w: number, reserveShare: number) => new RateBudget({ weightPerMinute: w, reserveShare }));
  const budgets = new Map<string, ApiBudget>();
  const sockets = new Set<Socket>();

  const send = (socket: Socket, reply: BrokerReply) => {
    if (!socket.destroyed && socket.writable) socket.write(`${JSON.stringify(reply)}\n`);
  };
  const budgetFor = (api: string): ApiBudget | undefined => {
    let budget = budgets.get(api);
    if (!budget && budgets.size < MAX_APIS) {
      budget = { pool: makeBudget(perMinute - floorWeight, CRITICAL_RESERVE_SHARE), floorLeft: floorWeight };
      budgets.set(api, budget);
    }
    return budget;
  };

  const onConnection = (socket: Socket) => {
    sockets.add(socket);
    socket.setEncoding("utf8");
    const gone = new AbortController();
    const touched = new Set<RateBudget>();
    /** This connection's floor per API server (none once the floors are all given). */
    const floors = new Map<ApiBudget, { budget: RateBudget; size: number } | null>();
    const floorOf = (api: ApiBudget, share: number | undefined) => {
      let floor = floors.get(api);
      if (floor === undefined && share !== undefined) {
        const size = Math.min(share * BROKER_FLOOR_SHARE, api.floorLeft);
        floor = size >= 1 ? { budget: makeBudget(size, 0), size } : null;
        if (floor) api.floorLeft -= size;
        floors.set(api, floor);
      }
      return floor ?? undefined;
    };
    let waiting = 0;
    let buffer = "";

    const handle = (line: string) => {
      const request = parseRequest(line);
      if ("error" in request) return send(socket, request);
      const api = budgetFor(request.api);
      if (!api) {
        const error = "too many API servers";
        return send(socket, request.type === "take" ? { id: request.id, error } : { error });
      }
      const budget = api.pool;
      touched.add(budget);
      switch (request.type) {
        case "take": {
          const { id, weight, background } = request;
          const granted = (floor: boolean) => {
            opts.observe?.({ api: request.api, weight, background, floor });
            send(socket, { id });
          };
          // A tick's read within its process's floor goes at once (not while the IP backs off).
          const floor = background ? undefined : floorOf(api, request.share);
          if (floor && budget.limitedForMs() === 0 && floor.budget.tryTake(weight)) return granted(true);
          if (waiting >= maxWaiting)
            return send(socket, { id, error: "too many takes waiting on this connection" });
          waiting += 1;
          budget
            .take(weight, { background, signal: gone.signal })
            .then(
              () => granted(false),
              () => undefined, // the client went away: its turn spent nothing
            )
            .finally(() => {
              waiting -= 1;
            });
          return;
        }
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
      // Its floors are given back once what they spent has left the window.
      for (const [api, floor] of floors)
        if (floor)
          setTimeout(() => {
            api.floorLeft += floor.size;
          }, FLOOR_RETURN_MS).unref();
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
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(opts.socketPath, { force: true });
    },
  };
}

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { RateBudget } from "../../src/exchange/budget.ts";
import { NetworkError, RateLimitedError, RejectedError, TimeoutError } from "../../src/exchange/errors.ts";
import { ResilientTransport } from "../../src/exchange/transport.ts";

type Handler = (body: unknown, res: ServerResponse, n: number) => void;

const servers: Server[] = [];
function stop(server: Server): Promise<unknown> {
  server.closeAllConnections();
  return new Promise((r) => server.close(r));
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map(stop));
});

/** A tiny stand-in for the exchange: `handler` answers the n-th request. */
async function stub(handler: Handler): Promise<{ url: string; count: () => number }> {
  let n = 0;
  const server = createServer((req: IncomingMessage, res) => {
    let raw = "";
    req.on("data", (c) => {
      raw += c;
    });
    req.on("end", () => handler(JSON.parse(raw || "null"), res, ++n));
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, count: () => n };
}

function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

function transport(url: string, extra: Partial<ConstructorParameters<typeof ResilientTransport>[0]> = {}) {
  const waits: number[] = [];
  // The budget's clock moves only when it waits: its 429 back-offs are recorded, not slept.
  let clock = 0;
  const t = new ResilientTransport({
    apiUrl: url,
    isTestnet: true,
    budget: new RateBudget({
      now: () => clock,
      random: () => 0.5,
      sleep: async (ms) => {
        waits.push(ms);
        clock += ms;
      },
    }),
    random: () => 0.5,
    sleep: async (ms) => {
      waits.push(ms);
    },
    ...extra,
  });
  return { t, waits };
}

describe("ResilientTransport", () => {
  it("retries info calls on 429 with jittered exponential back-off, then succeeds", async () => {
    const s = await stub((_b, res, n) =>
      n < 3 ? json(res, 429, "slow down") : json(res, 200, { ETH: "2500" }),
    );
    const { t, waits } = transport(s.url);
    await expect(t.request("info", { type: "allMids" })).resolves.toEqual({ ETH: "2500" });
    expect(s.count()).toBe(3);
    expect(waits).toEqual([375, 750]); // the budget's back-off: cap/2 + random 0.5 × cap/2, cap = 500·2^(n−1)
  });

  it("gives up after the bounded number of attempts with a RateLimitedError", async () => {
    const s = await stub((_b, res) => json(res, 429, "slow down"));
    const { t } = transport(s.url, { retry: { attempts: 3 } });
    const err = await t.request("info", { type: "meta" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitedError);
    expect((err as Error).message).toMatch(/rate limited.*info meta at http:\/\/127\.0\.0\.1/);
    expect(s.count()).toBe(3);
  });

  it("honours Retry-After on 429", async () => {
    const s = await stub((_b, res, n) =>
      n === 1 ? json(res, 429, "x", { "retry-after": "2" }) : json(res, 200, {}),
    );
    const { t, waits } = transport(s.url);
    await t.request("info", { type: "meta" });
    expect(waits).toEqual([2000]);
  });

  it("retries exchange actions on 429 (not processed) but never on 5xx (may have landed)", async () => {
    const limited = await stub((_b, res, n) =>
      n === 1 ? json(res, 429, "x") : json(res, 200, { status: "ok", response: { type: "default" } }),
    );
    await expect(
      transport(limited.url).t.request("exchange", { action: { type: "noop" } }),
    ).resolves.toMatchObject({ status: "ok" });
    expect(limited.count()).toBe(2);

    const failing = await stub((_b, res) => json(res, 502, { error: "bad gateway" }));
    const err = await transport(failing.url)
      .t.request("exchange", { action: { type: "order" } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect(failing.count()).toBe(1);
  });

  it("turns {status:'err'} into a RejectedError carrying the exchange's message", async () => {
    const s = await stub((_b, res) =>
      json(res, 200, { status: "err", response: "User or API Wallet 0xabc does not exist." }),
    );
    const err = await transport(s.url)
      .t.request("exchange", { action: { type: "order" } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RejectedError);
    expect((err as RejectedError).message).toBe("User or API Wallet 0xabc does not exist.");
    expect((err as RejectedError).statusErrors).toBeUndefined();
  });

  it("reports per-order refusals with their index", async () => {
    const body = {
      status: "ok",
      response: {
        type: "order",
        data: { statuses: [{ resting: { oid: 1 } }, { error: "Order has invalid price." }] },
      },
    };
    const s = await stub((_b, res) => json(res, 200, body));
    const err = (await transport(s.url)
      .t.request("exchange", { action: { type: "order" } })
      .catch((e: unknown) => e)) as RejectedError;
    expect(err).toBeInstanceOf(RejectedError);
    expect(err.statusErrors).toEqual([undefined, "Order has invalid price."]);
    expect(err.response).toEqual(body);
  });

  it("maps a 4xx info answer to RejectedError with the server's text", async () => {
    const s = await stub((_b, res) => json(res, 422, { error: "Failed to deserialize the JSON body" }));
    const err = await transport(s.url)
      .t.request("info", { type: "bogus" })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RejectedError);
    expect((err as Error).message).toMatch(/^Failed to deserialize the JSON body \(info bogus/);
  });

  it("raises NetworkError when nothing listens (after retrying info calls)", async () => {
    const s = await stub((_b, res) => json(res, 200, {}));
    const url = s.url;
    await Promise.all(servers.splice(0).map(stop));
    const { t, waits } = transport(url);
    const err = await t.request("info", { type: "meta" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as Error).message).toMatch(/cannot reach the exchange.*ECONNREFUSED/);
    expect(waits).toHaveLength(3);
  });

  it("raises TimeoutError when the answer does not come in time", async () => {
    const s = await stub(() => undefined); // never answers
    const { t } = transport(s.url, { timeoutMs: 100, retry: { attempts: 2 } });
    const err = await t.request("info", { type: "meta" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    expect((err as Error).message).toMatch(/no answer within 100 ms \(info meta/);
    expect(s.count()).toBe(2);
  });

  it("spends budget weight per attempt", async () => {
    const s = await stub((_b, res, n) => (n === 1 ? json(res, 429, "x") : json(res, 200, {})));
    // no back-off wait here (its clock never moves): only the weight is looked at
    const budget = new RateBudget({ weightPerMinute: 1200, now: () => 0, limitedMinMs: 0 });
    await transport(s.url, { budget }).t.request("info", { type: "meta" });
    expect(budget.available()).toBe(1160);
  });
});

describe("ResilientTransport and the weight budget", () => {
  it("an order never waits behind reads queued for budget weight (a close pre-empts a scan)", async () => {
    const seen: string[] = [];
    const s = await stub((b, res) => {
      const body = b as { type?: string; action?: { type: string } };
      seen.push(body.action ? `exchange:${body.action.type}` : `info:${body.type}`);
      json(res, 200, body.action ? { status: "ok", response: { type: "default" } } : {});
    });
    // An exhausted budget whose clock never moves: reads wait for weight until released.
    let release: () => void = () => undefined;
    const refill = new Promise<void>((r) => {
      release = r;
    });
    let now = 0;
    const budget = new RateBudget({
      weightPerMinute: 60,
      now: () => now,
      sleep: async () => {
        await refill;
        now += 60_000;
      },
    });
    await budget.take(60);
    const { t } = transport(s.url, { budget });
    const read = t.request("info", { type: "candleSnapshot", req: { coin: "ETH" } });
    await new Promise((r) => setTimeout(r, 20));
    await t.request("exchange", { action: { type: "order" } });
    expect(seen).toEqual(["exchange:order"]);
    release();
    await read;
    expect(seen).toEqual(["exchange:order", "info:candleSnapshot"]);
  });
});

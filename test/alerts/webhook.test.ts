import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ALERT_EVENTS,
  alerterFromEnv,
  createAlerter,
  DEFAULT_ALERT_EVENTS,
  parseAlertEvents,
} from "../../src/alerts/webhook.ts";
import { UserError } from "../../src/core/errors.ts";

/** A webhook receiver on loopback: records bodies; `statuses` answers the next requests in order. */
let server: Server;
let url = "";
const received: Record<string, unknown>[] = [];
let statuses: number[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => {
      body += c.toString();
    });
    req.on("end", () => {
      received.push(JSON.parse(body) as Record<string, unknown>);
      res.writeHead(statuses.shift() ?? 200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/T000/SECRET`;
});
afterAll(() => new Promise((r) => server.close(r)));

describe("webhook alerts", () => {
  it("posts a Slack/Discord-readable line with the event, source and fields; other events are not sent", async () => {
    received.length = 0;
    const a = createAlerter({ url, source: "hl run simple_mm ETH-PERP (testnet)", events: ["halt", "exit"] });
    a.send("halt", "risk hard stop: daily loss 1000 USD", { pnl: "-1000" });
    a.send("entry", "opened slot 0");
    await a.flush();
    expect(received).toEqual([
      {
        text: "[hl run simple_mm ETH-PERP (testnet)] risk hard stop: daily loss 1000 USD",
        content: "[hl run simple_mm ETH-PERP (testnet)] risk hard stop: daily loss 1000 USD",
        event: "halt",
        source: "hl run simple_mm ETH-PERP (testnet)",
        time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        pnl: "-1000",
      },
    ]);
  });

  it("retries a failing webhook, never prints its URL, and keeps private keys out", async () => {
    received.length = 0;
    statuses = [500, 503];
    const lines: string[] = [];
    const a = createAlerter({ url, source: "WOLF", events: ["exit"], log: (l) => lines.push(l) });
    a.send("exit", `closed with key 0x${"ab".repeat(32)} in a message`);
    await a.flush();
    expect(received).toHaveLength(3); // two failures, then delivered
    expect(received.at(-1)!.text).toBe("[WOLF] closed with key 0x<redacted> in a message");
    expect(lines).toEqual([]);

    statuses = [400];
    const refused = createAlerter({ url, source: "WOLF", events: ["exit"], log: (l) => lines.push(l) });
    refused.send("exit", "x");
    await refused.flush();
    expect(received).toHaveLength(4); // a 400 is not retried
    expect(lines).toEqual(["alert not delivered to the webhook: HTTP 400"]);
    expect(lines.join("")).not.toContain("SECRET");
  });

  it("an unreachable webhook costs nothing but one reported line; flush gives up after its wait", async () => {
    const lines: string[] = [];
    const a = createAlerter({
      url: "http://127.0.0.1:9/none",
      source: "agent",
      events: ["crash"],
      retries: 0,
      log: (l) => lines.push(l),
    });
    const t0 = Date.now();
    a.send("crash", "trading job crashed");
    await a.flush(3000);
    expect(Date.now() - t0).toBeLessThan(3500);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^alert not delivered to the webhook: /);
  });

  it("HL_ALERT_EVENTS: defaults, all, a list; an unknown name is a clear error; no webhook, no alerts", async () => {
    expect(parseAlertEvents(undefined)).toEqual([...DEFAULT_ALERT_EVENTS]);
    expect(DEFAULT_ALERT_EVENTS).not.toContain("entry");
    expect(parseAlertEvents("all")).toEqual([...ALERT_EVENTS]);
    expect(parseAlertEvents(" halt, exit ")).toEqual(["halt", "exit"]);
    expect(() => parseAlertEvents("halt,explode")).toThrow(UserError);
    expect(() => parseAlertEvents("halt,explode")).toThrow("HL_ALERT_EVENTS: unknown event explode");
    received.length = 0;
    const off = alerterFromEnv("x", {});
    off.send("halt", "nothing to send it to");
    await off.flush();
    const on = alerterFromEnv("x", { HL_ALERT_WEBHOOK: url, HL_ALERT_EVENTS: "gave_up" });
    on.send("gave_up", "gave up");
    await on.flush();
    expect(received.map((r) => r.event)).toEqual(["gave_up"]);
  });
});

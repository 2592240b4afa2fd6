import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { type SimWorld, startSimWorld } from "../../../src/sim/world.ts";

let world: SimWorld;
beforeAll(async () => {
  world = await startSimWorld({ seed: 3, houseMakers: false });
});
afterAll(async () => {
  await world.close();
});

const post = (path: string, body: unknown) =>
  fetch(`${world.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

describe("injected faults (/sim/fault)", () => {
  it("refuses a bad fault with a JSON 400", async () => {
    const r = await post("/sim/fault", { kind: "late", count: 0 });
    expect(r.status).toBe(400);
    expect((await r.json()) as { error: string }).toHaveProperty("error");
    expect((await post("/sim/fault", { kind: "melt" })).status).toBe(400);
  });

  it("answers the next matching info request with 429, then normally again", async () => {
    expect((await post("/sim/fault", { kind: "rate_limit", endpoint: "info", type: "allMids" })).status).toBe(
      200,
    );
    expect((await post("/info", { type: "meta" })).status).toBe(200); // another type is not affected
    expect((await post("/info", { type: "allMids" })).status).toBe(429);
    expect((await post("/info", { type: "allMids" })).status).toBe(200);
  });

  it("resets the connection of a matching request, even one the info cache could answer", async () => {
    expect((await post("/info", { type: "allMids" })).status).toBe(200); // now cached
    world.faults.add({ kind: "reset", endpoint: "info", type: "allMids" });
    await expect(post("/info", { type: "allMids" })).rejects.toThrow();
    expect((await post("/info", { type: "allMids" })).status).toBe(200);
  });

  it("lists and clears pending faults", async () => {
    world.faults.add({ kind: "late", type: "order", count: 3 });
    const listed = (await (await fetch(`${world.url}/sim/faults`)).json()) as { faults: unknown[] };
    expect(listed.faults).toHaveLength(1);
    expect((await fetch(`${world.url}/sim/faults`, { method: "DELETE" })).status).toBe(200);
    expect(world.faults.pending()).toEqual([]);
  });

  it("drop_ws cuts every open WebSocket", async () => {
    const ws = new WebSocket(world.wsUrl);
    await new Promise((resolve, reject) => {
      ws.once("open", resolve);
      ws.once("error", reject);
    });
    const closed = new Promise((resolve) => ws.once("close", resolve));
    const r = (await (await post("/sim/fault", { kind: "drop_ws" })).json()) as { dropped: number };
    expect(r.dropped).toBe(1);
    await closed;
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SimWorld, startSimWorld } from "../../../src/sim/world.ts";

let world: SimWorld;

beforeAll(async () => {
  world = await startSimWorld({ seed: 2 });
});
afterAll(() => world.close());

describe("sim world health", () => {
  it("answers GET /health like every service, with what /sim/health says", async () => {
    const res = await fetch(`${world.url}/health`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const body = (await res.json()) as { status: string; time: number };
    expect(body.status).toBe("ok");
    expect(typeof body.time).toBe("number");
    const admin = (await (await fetch(`${world.url}/sim/health`)).json()) as { status: string };
    expect(admin.status).toBe(body.status);
  });
});

import { describe, expect, it } from "vitest";
import { createPointsApp } from "../../../src/services/points/http.ts";
import type { PointsService } from "../../../src/services/points/service.ts";

describe("points health", () => {
  it("answers GET /health as every service does", async () => {
    // /health asks nothing of the points computation.
    const { app } = createPointsApp({} as unknown as PointsService);
    const res = await app.inject({ method: "GET", url: "/health" });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: "ok" });
    expect(Number.isInteger((res.json() as { uptime_s: unknown }).uptime_s)).toBe(true);
  });
});

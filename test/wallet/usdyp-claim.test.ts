import { createServer } from "node:http";
import { describe, expect, it } from "vitest";
import { claimUsdyp, NOT_CONNECTED_HINT } from "../../src/wallet/usdyp-claim.ts";

/** A claim service answering every claim with one status and body. */
async function service(status: number, body: unknown): Promise<{ url: string; close: () => void }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.statusCode = status;
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify(body));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    close: () => server.close(),
  };
}

const ADDRESS = `0x${"ab".repeat(20)}`;

describe("USDyP claim refusals", () => {
  it("a second claim (409 already claimed) says so, without the not-connected hint", async () => {
    const s = await service(409, { error: "USDyP already claimed" });
    try {
      const err = await claimUsdyp(s.url, ADDRESS).catch((e: Error) => e);
      expect(err).toBeInstanceOf(Error);
      expect((err as Error).message).toContain("HTTP 409: USDyP already claimed");
      expect((err as Error).message).not.toContain(NOT_CONNECTED_HINT);
    } finally {
      s.close();
    }
  });

  it("another refusal still gives the hint", async () => {
    const s = await service(400, { error: "user not found" });
    try {
      const err = await claimUsdyp(s.url, ADDRESS).catch((e: Error) => e);
      expect((err as Error).message).toContain(NOT_CONNECTED_HINT);
    } finally {
      s.close();
    }
  });
});

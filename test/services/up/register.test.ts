import { mkdtempSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readRegistration } from "../../../src/services/agent/account-pnl.ts";
import { registerBeforeTrading } from "../../../src/services/up/register.ts";

describe("registration before trading", () => {
  it("creates each agent's paper wallet and registers it on the paper board before resolving", async () => {
    const seen: { address: string; network: string; display_name: string }[] = [];
    const server = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => {
        body += c.toString();
      });
      req.on("end", () => {
        seen.push(JSON.parse(body) as (typeof seen)[number]);
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify({ registered: true, new: true, initial_account_value: 9876.54 }));
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    try {
      const root = mkdtempSync(join(tmpdir(), "hl-register-"));
      const agents = ["agent", "house-1"].map((name) => ({
        name,
        walletDir: join(root, name),
        displayName: `${name} bot`,
      }));
      await registerBeforeTrading(url, agents, AbortSignal.timeout(10_000), () => undefined);
      const addresses = agents.map(
        (a) =>
          (JSON.parse(readFileSync(join(a.walletDir, "paper", "key.json"), "utf8")) as { address: string })
            .address,
      );
      expect(seen).toEqual(
        agents.map((a, i) => ({ address: addresses[i], network: "paper", display_name: a.displayName })),
      );
      // The leaderboard's baseline is kept beside each wallet: the dashboard's account PnL starts from it.
      expect(agents.map((a) => readRegistration(a.walletDir))).toEqual(
        addresses.map((address) => ({ network: "paper", address, initial_account_value: "9876.54" })),
      );
    } finally {
      server.close();
    }
  });
});

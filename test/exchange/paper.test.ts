import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ensurePaperWorld, probeInfo } from "../../src/exchange/paper.ts";
import { openClientSession } from "../../src/exchange/session.ts";
import { startSimWorld } from "../../src/sim/world.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      srv.close(() => resolve(typeof addr === "object" && addr ? addr.port : 0));
    });
  });
}

describe("ensurePaperWorld", () => {
  it("starts a sim world in-process when nothing listens, and stops it on close", async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    expect(await probeInfo(url)).toBe(false);
    const world = await ensurePaperWorld(url);
    expect(world.startedHere).toBe(true);
    expect(world.url).toBe(url);
    expect(await probeInfo(url)).toBe(true);
    await world.close();
    expect(await probeInfo(url)).toBe(false);
  });

  it("uses a world that already answers and leaves it running", async () => {
    const running = await startSimWorld({ port: 0 });
    try {
      const world = await ensurePaperWorld(running.url);
      expect(world.startedHere).toBe(false);
      await world.close();
      expect(await probeInfo(running.url)).toBe(true);
      // Every paper command probes its world: a probe spends none of the IP's request weight, which
      // no client budget (nor `hl up`'s weight broker) would know of.
      const weight = (await (await fetch(`${running.url}/sim/weight`)).json()) as {
        addresses: { lastMinute: number }[];
      };
      expect(weight.addresses.reduce((sum, a) => sum + a.lastMinute, 0)).toBe(0);
    } finally {
      await running.close();
    }
  });

  it("does not try to start a world for a remote URL", async () => {
    await expect(ensurePaperWorld("http://192.0.2.1:8900", { probeTimeoutMs: 50 })).rejects.toThrow(
      /not local/,
    );
  });
});

describe("openClientSession", () => {
  it("on paper: starts the world, creates the paper wallet, opens its funded account, and says so", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "hl-session-"));
    dirs.push(dataDir);
    const port = await freePort();
    const session = await openClientSession({
      network: "paper",
      env: { DATA_DIR: dataDir, SIM_PORT: String(port) },
    });
    try {
      expect(session.client.apiUrl).toBe(`http://127.0.0.1:${port}`);
      expect(session.notes.join("\n")).toMatch(/Started the saved sim world in this process/);
      expect(session.notes.join("\n")).toMatch(
        /Created a paper wallet 0x[0-9a-fA-F]{40} in .*paper\/key\.json/,
      );
      const summary = await session.client.accountSummary();
      expect(Number(summary.accountValue)).toBeGreaterThan(0);
    } finally {
      await session.close();
    }
    expect(await probeInfo(`http://127.0.0.1:${port}`)).toBe(false);
  });
});

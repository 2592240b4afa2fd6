import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RateBudget } from "../../src/exchange/budget.ts";
import { HlClient } from "../../src/exchange/client.ts";
import { listGuards } from "../../src/guard/store.ts";
import { type SimWorld, startSimWorld } from "../../src/sim/world.ts";

/** `hl dsl start` as a real process, killed with SIGKILL while guarding, with the WebSocket dropped. */

const HL = join(import.meta.dirname, "../../bin/hl.mjs");

let world: SimWorld;
let dataDir: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  world = await startSimWorld({ port: 0, seed: 17 });
  dataDir = mkdtempSync(join(tmpdir(), "hl-dsl-chaos-"));
});
afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
  await world.close();
});

function start(): { child: ChildProcess; out: () => string; exited: Promise<number | null> } {
  const child = spawn("node", [HL, "dsl", "start", "ETH-PERP", "--tick", "0.2", "--preset", "tight"], {
    env: { ...process.env, DATA_DIR: dataDir, HL_API_URL: world.url, HL_NETWORK: "", HL_PRIVATE_KEY: "" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let text = "";
  child.stdout!.on("data", (d) => {
    text += d.toString();
  });
  child.stderr!.on("data", (d) => {
    text += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, out: () => text, exited };
}

async function until(pred: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("hl dsl start under kill -9 and a dropped WebSocket", () => {
  it("keeps polling after the stream drops, and every restart resumes the one guard of the position", async () => {
    const client = await HlClient.create({
      network: "paper",
      apiUrl: world.url,
      env: { DATA_DIR: dataDir },
      budget: new RateBudget({ weightPerMinute: 1e9 }),
    });
    await client.accountSummary();
    const opened = await client.marketOrder({ instrument: "ETH-PERP", side: "buy", size: "0.1" });
    expect(opened.status).toBe("filled");
    const dir = join(dataDir, "dsl");
    for (let i = 0; i < 3; i++) {
      const p = start();
      await until(() => /Guarding ETH-PERP/.test(p.out()), 20_000, "the guard to start");
      world.faults.add({ kind: "drop_ws" });
      const polled = (p.out().match(/ hold {2}floor=/g) ?? []).length;
      await until(
        () => (p.out().match(/ hold {2}floor=/g) ?? []).length > polled,
        10_000,
        "a poll after the dropped stream",
      );
      p.child.kill("SIGKILL");
      await p.exited;
      if (i > 0) expect(p.out()).toMatch(/resuming the saved guard/);
      const { guards } = listGuards(dir);
      expect(guards).toHaveLength(1);
      expect(guards[0]!.state.closed).toBe(false);
    }
    const { positions } = await client.accountSummary();
    expect(positions.filter((p) => p.coin === "ETH").map((p) => p.szi)).toEqual(["0.1"]);
    await client.close();
  }, 60_000);
});

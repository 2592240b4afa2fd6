import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generatePrivateKey } from "viem/accounts";
import { HlClient } from "../../src/exchange/index.ts";
import type { SimWorld } from "../../src/sim/world.ts";
import { buildWolfConfig, type WolfConfigInput } from "../../src/wolf/config.ts";
import type { HlWolfPort } from "../../src/wolf/hl-port.ts";
import { WolfRunner, type WolfRunnerOptions } from "../../src/wolf/runner.ts";

/** A client of the sim world with a fresh key (its own paper account, opened), one attempt per request. */
export async function simPaperClient(world: SimWorld, o: { timeoutMs?: number } = {}): Promise<HlClient> {
  const client = await HlClient.create({
    network: "paper",
    apiUrl: world.url,
    wsUrl: world.wsUrl,
    privateKey: generatePrivateKey(),
    env: { DATA_DIR: mkdtempSync(join(tmpdir(), "sim-key-")) },
    retry: { attempts: 1 },
    ...(o.timeoutMs !== undefined ? { timeoutMs: o.timeoutMs } : {}),
  });
  await client.clearinghouseState();
  return client;
}

/** Polls `probe` until it gives a value; throws naming `what` after `ms`. */
export async function until<T>(
  what: string,
  ms: number,
  probe: () => Promise<T | undefined> | T | undefined,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** WOLF's default preset at 10× over `port`, quiet unless given a log; `more` adds runner options. */
export function openWolfRunner(
  port: HlWolfPort,
  dataDir: string,
  extra: WolfConfigInput = {},
  more: Partial<Omit<WolfRunnerOptions, "port" | "dataDir" | "preset" | "config">> = {},
): Promise<WolfRunner> {
  return WolfRunner.open({
    port,
    dataDir,
    preset: "default",
    config: buildWolfConfig("default", {}, { leverage: 10, ...extra }),
    log: () => undefined,
    ...more,
  });
}

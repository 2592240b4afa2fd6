import { alerterFromEnv } from "../../alerts/webhook.ts";
import type { Network } from "../../config/defaults.ts";
import { dataDir as envDataDir } from "../../config/env.ts";
import { UserError } from "../../core/errors.ts";
import { openClientSession } from "../../exchange/index.ts";
import { HlWolfPort } from "../../wolf/hl-port.ts";
import { startGuardOnly } from "./guard-only.ts";

/** `hl agent guard`: the guard-only loop over WOLF's saved slots until SIGTERM/SIGINT. */
export async function runGuardOnly(o: { network: Network; dataDir?: string }): Promise<void> {
  const network = o.network;
  const dir = o.dataDir ? envDataDir({ DATA_DIR: o.dataDir }) : envDataDir();
  const alerter = alerterFromEnv(`WOLF guard-only (${network})`);
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const s = await openClientSession({ network, env: { ...process.env, DATA_DIR: dir } });
  try {
    if (!s.client.address) throw new UserError(`no wallet configured for ${network}: set HL_PRIVATE_KEY`);
    const loop = await startGuardOnly({ dataDir: dir, port: new HlWolfPort(s.client), log, alerter });
    await new Promise<void>((resolve) => {
      process.once("SIGTERM", resolve);
      process.once("SIGINT", resolve);
    });
    await loop.stop();
  } finally {
    await s.close();
    await alerter.flush();
  }
}
